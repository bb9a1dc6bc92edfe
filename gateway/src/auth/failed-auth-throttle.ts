import { AppError, Config, failedAuthCounters, failedAuthRetryAfter, LruMap } from '@em/core';
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
      const limit = this.cfg.AUTH_FAILURE_LIMIT;
      if (failures.current + failures.previous >= limit) {
        const retryAfterSeconds = failedAuthRetryAfter(
          counters,
          failures.current,
          limit,
          this.cfg.AUTH_FAILURE_WINDOW_SECONDS,
        );
        throw new AppError(
          'RATE_LIMITED',
          `Too many failed authentications from this address; retry in ${retryAfterSeconds} s`,
          { retryAfterSeconds },
        );
      }
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

  /** Runs an authentication, counting its 401/403 against the address. */
  async guard<T>(address: string | null | undefined, authenticate: () => Promise<T>): Promise<T> {
    await this.assertAllowed(address);
    try {
      return await authenticate();
    } catch (err) {
      if (err instanceof AppError && (err.status === 401 || err.status === 403)) await this.recordFailure(address);
      throw err;
    }
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
