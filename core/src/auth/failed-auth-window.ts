import type { Redis } from 'ioredis';
import { clientNetworkKey } from './client-address';

/**
 * A count kept in fixed windows where a check adds the previous window's count to the current one's, so no
 * `windowSeconds` ever holds more than the limit (a fixed window alone lets twice the limit through in the seconds
 * around its end). The gateway's failed-auth throttle and the identity provider's sign-in throttle count this way.
 */
export interface WindowCounters {
  current: string;
  previous: string;
  /** Seconds until the current window ends (at least 1). */
  endsInSeconds: number;
  /** How long a counter must live: it is still counted through the next window. */
  ttlSeconds: number;
}

/** The Redis keys of `key`'s counters at `now`. */
export function windowCounters(key: string, windowSeconds: number, now = Date.now()): WindowCounters {
  const index = Math.floor(now / 1000 / windowSeconds);
  return {
    current: `${key}:${index}`,
    previous: `${key}:${index - 1}`,
    endsInSeconds: Math.max(1, Math.ceil((index + 1) * windowSeconds - now / 1000)),
    ttlSeconds: 2 * windowSeconds + 1,
  };
}

/** Checks each key's count (its window and the previous) against its limit, then counts one in every key: atomically. */
const COUNT_IF_UNDER_LUA = `
  local n = #KEYS / 2
  for i = 1, n do
    local current = tonumber(redis.call('GET', KEYS[2 * i - 1]) or '0')
    if current + tonumber(redis.call('GET', KEYS[2 * i]) or '0') >= tonumber(ARGV[i + 1]) then return {0, i, current} end
  end
  for i = 1, n do
    redis.call('INCR', KEYS[2 * i - 1])
    redis.call('EXPIRE', KEYS[2 * i - 1], ARGV[1])
  end
  return {1}`;
const UNCOUNT_LUA = `if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end`;

/** Counted in every window, or refused: `current` is the count in this window of the first entry holding its limit. */
export type WindowCount = { counted: true } | { counted: false; current: number };

/**
 * Counts one try in every entry's current window unless one of them already holds its limit, in one Redis script:
 * tries arriving together cannot all pass the check before any is counted.
 */
export async function countInWindowsIfUnder(
  redis: Redis,
  entries: ReadonlyArray<{ counters: WindowCounters; limit: number }>,
): Promise<WindowCount> {
  const keys = entries.flatMap(({ counters }) => [counters.current, counters.previous]);
  const ttl = Math.max(...entries.map(({ counters }) => counters.ttlSeconds));
  const [counted, , current] = (await redis.eval(
    COUNT_IF_UNDER_LUA,
    keys.length,
    ...keys,
    ttl,
    ...entries.map(({ limit }) => limit),
  )) as number[];
  return counted === 1 ? { counted: true } : { counted: false, current };
}

/** Takes one counted try back from a window's counter (a try that turned out not to be a failure). */
export async function uncountInWindow(redis: Redis, counter: string): Promise<void> {
  await redis.eval(UNCOUNT_LUA, 1, counter);
}

/**
 * The counters of an address's failed authentications: the gateway's throttle counts there; the REST adapter reads
 * the same counters before answering a visitor from a grant given to another address. An IPv6 address counts as its
 * /64 (`clientNetwork`, as the browser keys' budgets): one subscriber holds the whole network and could otherwise step
 * through it.
 */
export type FailedAuthCounters = WindowCounters;

export function failedAuthCounters(
  address: string | null | undefined,
  windowSeconds: number,
  now = Date.now(),
): FailedAuthCounters {
  return windowCounters(`authfail:${clientNetworkKey(address)}`, windowSeconds, now);
}

/**
 * When a refused address may be let in again: at the end of this window, when the previous window's failures stop
 * counting, unless this window reached the limit alone (then at the end of the next).
 */
export function failedAuthRetryAfter(
  counters: FailedAuthCounters,
  currentFailures: number,
  limit: number,
  windowSeconds: number,
): number {
  return currentFailures >= limit ? counters.endsInSeconds + windowSeconds : counters.endsInSeconds;
}
