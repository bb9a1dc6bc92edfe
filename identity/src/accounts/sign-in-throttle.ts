import type { Redis } from 'ioredis';

export interface ThrottleLimits {
  /** Failed sign-ins of one account (e-mail) in a window before further tries are refused. */
  perAccount: number;
  /** Failed sign-ins from one client address in a window (many accounts tried from one place). */
  perAddress: number;
  windowSeconds: number;
}

/** Counts of failures per key with their window; Redis in the service, a Map in unit tests. */
export interface FailureCounter {
  count(key: string): Promise<number>;
  add(key: string, windowSeconds: number): Promise<void>;
  clear(key: string): Promise<void>;
}

/** One try counted against its keys, in the window it was counted in (to take it back). */
export interface CountedTry {
  keys: string[];
  window: number;
}

/**
 * The sign-in throttle's counters: tries are counted in fixed windows, and a key's count is its current window's and
 * the previous one's together, so no `windowSeconds` ever holds more than the limit (a fixed window alone lets twice
 * the limit through around its end).
 */
export interface SignInCounters {
  /**
   * Counts one try against every key unless one of them already holds its limit, at once (tries arriving together
   * cannot all pass the check before any is counted); null when refused.
   */
  countIfUnder(
    limits: ReadonlyArray<{ key: string; limit: number }>,
    windowSeconds: number,
  ): Promise<CountedTry | null>;
  /** Takes a counted try back from one of its keys. */
  uncount(counted: CountedTry, key: string): Promise<void>;
  /** Forgets every try of the key. */
  forget(key: string, windowSeconds: number): Promise<void>;
}

const windowOf = (now: number, windowSeconds: number) => Math.floor(now / 1000 / windowSeconds);
const windowKey = (key: string, window: number) => `${key}:${window}`;

/** Checks the keys' counts (this window and the previous) against their limits, then counts the try: atomically. */
const COUNT_IF_UNDER_LUA = `
  local n = #KEYS / 2
  for i = 1, n do
    local held = tonumber(redis.call('GET', KEYS[2 * i - 1]) or '0') + tonumber(redis.call('GET', KEYS[2 * i]) or '0')
    if held >= tonumber(ARGV[i + 1]) then return 0 end
  end
  for i = 1, n do
    redis.call('INCR', KEYS[2 * i - 1])
    redis.call('EXPIRE', KEYS[2 * i - 1], ARGV[1])
  end
  return 1`;
const UNCOUNT_LUA = `if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end`;

export class RedisFailureCounter implements FailureCounter, SignInCounters {
  constructor(
    private readonly redis: Redis,
    private readonly now: () => number = Date.now,
  ) {}

  async count(key: string) {
    return Number((await this.redis.get(key)) ?? 0);
  }

  async add(key: string, windowSeconds: number) {
    // The window starts at the first failure; later ones do not extend it.
    await this.redis.multi().incr(key).expire(key, windowSeconds, 'NX').exec();
  }

  async clear(key: string) {
    await this.redis.del(key);
  }

  async countIfUnder(limits: ReadonlyArray<{ key: string; limit: number }>, windowSeconds: number) {
    const window = windowOf(this.now(), windowSeconds);
    const keys = limits.flatMap(({ key }) => [windowKey(key, window), windowKey(key, window - 1)]);
    // A window's count is read through the next window: it lives two windows.
    const counted = await this.redis.eval(
      COUNT_IF_UNDER_LUA,
      keys.length,
      ...keys,
      2 * windowSeconds + 1,
      ...limits.map(({ limit }) => limit),
    );
    return counted === 1 ? { keys: limits.map(({ key }) => key), window } : null;
  }

  async uncount(counted: CountedTry, key: string) {
    await this.redis.eval(UNCOUNT_LUA, 1, windowKey(key, counted.window));
  }

  async forget(key: string, windowSeconds: number) {
    const window = windowOf(this.now(), windowSeconds);
    await this.redis.del(windowKey(key, window), windowKey(key, window - 1));
  }
}

/** Counts in this process: for the CLI and the demo seed (they never sign in) and unit tests. */
export class MemoryFailureCounter implements FailureCounter, SignInCounters {
  private readonly counts = new Map<string, { count: number; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async count(key: string) {
    const entry = this.counts.get(key);
    return entry && entry.until > this.now() ? entry.count : 0;
  }

  async add(key: string, windowSeconds: number) {
    const entry = this.counts.get(key);
    if (entry && entry.until > this.now()) entry.count += 1;
    else this.counts.set(key, { count: 1, until: this.now() + windowSeconds * 1000 });
  }

  async clear(key: string) {
    this.counts.delete(key);
  }

  async countIfUnder(limits: ReadonlyArray<{ key: string; limit: number }>, windowSeconds: number) {
    const window = windowOf(this.now(), windowSeconds);
    const held = (key: string) =>
      (this.counts.get(windowKey(key, window))?.count ?? 0) + (this.counts.get(windowKey(key, window - 1))?.count ?? 0);
    // No await between the check and the count: tries of this process cannot interleave.
    if (limits.some(({ key, limit }) => held(key) >= limit)) return null;
    for (const { key } of limits) {
      const entry = this.counts.get(windowKey(key, window));
      if (entry) entry.count += 1;
      else this.counts.set(windowKey(key, window), { count: 1, until: (window + 2) * windowSeconds * 1000 });
    }
    return { keys: limits.map(({ key }) => key), window };
  }

  async uncount(counted: CountedTry, key: string) {
    const entry = this.counts.get(windowKey(key, counted.window));
    if (entry && entry.count > 0) entry.count -= 1;
  }

  async forget(key: string, windowSeconds: number) {
    const window = windowOf(this.now(), windowSeconds);
    this.counts.delete(windowKey(key, window));
    this.counts.delete(windowKey(key, window - 1));
  }
}

/**
 * Sign-in attempts throttled per account and per client address: a try is counted before its password is checked
 * (refused, unchecked, when the account or the address already holds its limit in the last window and the one
 * before), so tries sent together check no more passwords than the limit. A success takes its try back from the
 * address and clears the account's count (not the address's: one good password must not reset a spray from that
 * address).
 */
export class SignInThrottle {
  constructor(
    private readonly counters: SignInCounters,
    private readonly limits: ThrottleLimits,
  ) {}

  private keys(email: string, address: string) {
    return { account: `signin:fail:account:${email}`, address: `signin:fail:address:${address}` };
  }

  /** Counts a try, before its password is checked; null: refused. */
  async attempt(email: string, address: string): Promise<CountedTry | null> {
    const keys = this.keys(email, address);
    return this.counters.countIfUnder(
      [
        { key: keys.account, limit: this.limits.perAccount },
        { key: keys.address, limit: this.limits.perAddress },
      ],
      this.limits.windowSeconds,
    );
  }

  async succeeded(counted: CountedTry): Promise<void> {
    const [account, address] = counted.keys;
    await Promise.all([
      this.counters.uncount(counted, address),
      this.counters.forget(account, this.limits.windowSeconds),
    ]);
  }
}
