import { AppError, Config, failedAuthWindow, LruMap } from '@em/core';
import type { Redis } from 'ioredis';

/** How long a process trusts the failure count it last read for an address (the limit holds across gateways within this lag). */
const COUNT_TTL_MS = 1_000;

/**
 * Counts failed authentications (401/403) per client address in fixed Redis windows, shared by
 * every gateway process. Once an address has failed `AUTH_FAILURE_LIMIT` times in a window, its
 * calls are answered 429 with Retry-After before any key lookup, whatever credential they carry.
 * If Redis cannot be reached, calls are let through (like the rate limiter).
 * A process reads an address's count at most once a second (not on every call of the read path)
 * and learns its own failures at once from the increments it makes.
 */
export class FailedAuthThrottle {
  private readonly counts = new LruMap<string, { failures: number; until: number }>(10_000);

  constructor(
    private readonly redis: Redis,
    private readonly cfg: Pick<Config, 'AUTH_FAILURE_LIMIT' | 'AUTH_FAILURE_WINDOW_SECONDS'>,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /** Throws RATE_LIMITED (with `retryAfterSeconds`) when the address has failed too often. */
  async assertAllowed(address: string | null | undefined, now = Date.now()): Promise<void> {
    const { key, retryAfterSeconds } = this.window(address, now);
    try {
      const failures = await this.failures(key, now);
      if (failures >= this.cfg.AUTH_FAILURE_LIMIT) {
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
    const { key } = this.window(address, now);
    try {
      const results = await this.redis
        .multi()
        .incr(key)
        .expire(key, this.cfg.AUTH_FAILURE_WINDOW_SECONDS + 1)
        .exec();
      this.counts.set(key, { failures: Number(results?.[0]?.[1] ?? 0), until: now + COUNT_TTL_MS });
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

  private async failures(key: string, now: number): Promise<number> {
    const known = this.counts.get(key);
    if (known && known.until > now) return known.failures;
    const failures = Number((await this.redis.get(key)) ?? 0);
    this.counts.set(key, { failures, until: now + COUNT_TTL_MS });
    return failures;
  }

  /** The window and limit, for grants that serve other addresses (the REST adapter checks the same count). */
  get rule(): { window: number; limit: number } {
    return { window: this.cfg.AUTH_FAILURE_WINDOW_SECONDS, limit: this.cfg.AUTH_FAILURE_LIMIT };
  }

  private window(address: string | null | undefined, now: number) {
    return failedAuthWindow(address, this.cfg.AUTH_FAILURE_WINDOW_SECONDS, now);
  }
}
