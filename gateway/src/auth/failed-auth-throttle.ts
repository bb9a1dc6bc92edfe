import {
  AppError,
  Config,
  countInWindowsIfUnder,
  failedAuthCounters,
  FailedAuthCounters,
  failedAuthRetryAfter,
  LruMap,
  uncountInWindow,
} from '@em/core';
import type { Redis } from 'ioredis';

/** How long a process trusts the failure count it last read for an address (the limit holds across gateways within this lag). */
const COUNT_TTL_MS = 1_000;

interface KnownFailures {
  current: number;
  previous: number;
  until: number;
}

/**
 * Counts failed authentications (401/403) per client address in Redis, shared by every gateway
 * process: once an address has failed `AUTH_FAILURE_LIMIT` times in this window and the last
 * together (`failedAuthCounters`: never more than the limit in any window's length), its calls
 * are answered 429 with Retry-After before any key lookup, whatever credential they carry.
 * If Redis cannot be reached, calls are let through (like the rate limiter).
 * A process reads an address's counts at most once a second (not on every call of the read path)
 * and learns its own failures at once from the increments it makes.
 */
export class FailedAuthThrottle {
  private readonly known = new LruMap<string, KnownFailures>(10_000);

  constructor(
    private readonly redis: Redis,
    private readonly cfg: Pick<Config, 'AUTH_FAILURE_LIMIT' | 'AUTH_FAILURE_WINDOW_SECONDS'>,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /** Throws RATE_LIMITED (with `retryAfterSeconds`) when the address has failed too often. */
  async assertAllowed(address: string | null | undefined, now = Date.now()): Promise<void> {
    const counters = this.counters(address, now);
    try {
      const failures = await this.failures(counters, now);
      if (failures.current + failures.previous >= this.cfg.AUTH_FAILURE_LIMIT)
        throw this.refusal(counters, failures.current);
    } catch (err) {
      if (err instanceof AppError) throw err;
      this.onError(err);
    }
  }

  async recordFailure(address: string | null | undefined, now = Date.now()): Promise<void> {
    const counters = this.counters(address, now);
    try {
      const results = await this.redis
        .multi()
        .incr(counters.current)
        .expire(counters.current, counters.ttlSeconds)
        .get(counters.previous)
        .exec();
      this.known.set(counters.current, {
        current: Number(results?.[0]?.[1] ?? 0),
        previous: Number(results?.[2]?.[1] ?? 0),
        until: now + COUNT_TTL_MS,
      });
    } catch (err) {
      this.onError(err);
    }
  }

  /**
   * Runs an authentication, counting its 401/403 against the address. One that looks its credential up (a key the
   * cache does not know, a bearer token) is counted before it runs, by one Redis script that refuses it when the
   * address holds its limit, and taken back unless it fails: failing calls sent together look up no more credentials
   * than the limit. One the key cache answers is checked before and counted after (no Redis write on the read path).
   */
  async guard<T>(
    address: string | null | undefined,
    authenticate: () => Promise<T>,
    opts: { looksUp?: boolean } = {},
  ): Promise<T> {
    const counted = opts.looksUp ? await this.countFirst(address) : null;
    if (!counted) await this.assertAllowed(address);
    try {
      const authenticated = await authenticate();
      if (counted) await this.uncount(counted);
      return authenticated;
    } catch (err) {
      const failed = err instanceof AppError && (err.status === 401 || err.status === 403);
      if (counted) {
        if (failed) this.known.delete(counted.current);
        else await this.uncount(counted);
      } else if (failed) await this.recordFailure(address);
      throw err;
    }
  }

  /** Counts a try that looks up its credential before it runs; null when Redis cannot count (then checked as usual). */
  private async countFirst(address: string | null | undefined): Promise<FailedAuthCounters | null> {
    const counters = this.counters(address, Date.now());
    try {
      const count = await countInWindowsIfUnder(this.redis, [{ counters, limit: this.cfg.AUTH_FAILURE_LIMIT }]);
      if (!count.counted) throw this.refusal(counters, count.current);
      return counters;
    } catch (err) {
      if (err instanceof AppError) throw err;
      this.onError(err);
      return null;
    }
  }

  private async uncount(counters: FailedAuthCounters): Promise<void> {
    try {
      await uncountInWindow(this.redis, counters.current);
    } catch (err) {
      this.onError(err);
    }
  }

  private refusal(counters: FailedAuthCounters, currentFailures: number): AppError {
    const retryAfterSeconds = failedAuthRetryAfter(
      counters,
      currentFailures,
      this.cfg.AUTH_FAILURE_LIMIT,
      this.cfg.AUTH_FAILURE_WINDOW_SECONDS,
    );
    return new AppError(
      'RATE_LIMITED',
      `Too many failed authentications from this address; retry in ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    );
  }

  private async failures(counters: { current: string; previous: string }, now: number): Promise<KnownFailures> {
    const known = this.known.get(counters.current);
    if (known && known.until > now) return known;
    const [current, previous] = await this.redis.mget(counters.current, counters.previous);
    const read = { current: Number(current ?? 0), previous: Number(previous ?? 0), until: now + COUNT_TTL_MS };
    this.known.set(counters.current, read);
    return read;
  }

  /** The window and limit, for grants that serve other addresses (the REST adapter checks the same counts). */
  get rule(): { window: number; limit: number } {
    return { window: this.cfg.AUTH_FAILURE_WINDOW_SECONDS, limit: this.cfg.AUTH_FAILURE_LIMIT };
  }

  private counters(address: string | null | undefined, now: number) {
    return failedAuthCounters(address, this.cfg.AUTH_FAILURE_WINDOW_SECONDS, now);
  }
}
