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

/**
 * The counters of an address's failed authentications: the gateway's throttle counts there; the REST adapter reads
 * the same counters before answering a visitor from a grant given to another address.
 */
export type FailedAuthCounters = WindowCounters;

export function failedAuthCounters(
  address: string | null | undefined,
  windowSeconds: number,
  now = Date.now(),
): FailedAuthCounters {
  return windowCounters(`authfail:${address ?? 'unknown'}`, windowSeconds, now);
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
