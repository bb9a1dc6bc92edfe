import type { Redis } from 'ioredis';
import { Config } from '../config';
import type { RateClass } from '../operation-policy';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterSeconds: number;
}

/**
 * Fixed-window counters in Redis, per credential and class, so the limits hold across any number
 * of gateway processes. If Redis cannot be reached the call is let through (and the failure
 * reported): a limiter outage must not take the API down.
 */
export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly cfg: Pick<Config, 'RATE_LIMIT_WINDOW_SECONDS' | 'RATE_LIMIT_READS' | 'RATE_LIMIT_MATCHING'> &
      Partial<Pick<Config, 'RATE_LIMIT_BROWSER_KEY_READS' | 'RATE_LIMIT_BROWSER_KEY_MATCHING'>>,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /** One round trip per call (the read path's hot spot): increment, and give a new window its expiry. */
  private counters(): Redis & { consumeWindow(key: string, units: number, ttlSeconds: number): Promise<number> } {
    if (!('consumeWindow' in this.redis)) {
      this.redis.defineCommand('consumeWindow', {
        numberOfKeys: 1,
        lua: "local count = redis.call('INCRBY', KEYS[1], ARGV[1]) if count == tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[2]) end return count",
      });
    }
    return this.redis as never;
  }

  defaultLimit(cls: RateClass): number {
    return cls === 'matching' ? this.cfg.RATE_LIMIT_MATCHING : this.cfg.RATE_LIMIT_READS;
  }

  /** The ceiling of all visitors of one read-only (browser) key together. */
  sharedLimit(cls: RateClass): number {
    return (
      (cls === 'matching' ? this.cfg.RATE_LIMIT_BROWSER_KEY_MATCHING : this.cfg.RATE_LIMIT_BROWSER_KEY_READS) ??
      this.defaultLimit(cls)
    );
  }

  /** Charges `units` calls (an operation with several face-matching fields costs one each). */
  async consume(
    cls: RateClass,
    subject: string,
    limit = this.defaultLimit(cls),
    units = 1,
    now = Date.now(),
  ): Promise<RateDecision> {
    const window = this.cfg.RATE_LIMIT_WINDOW_SECONDS;
    const nowSeconds = now / 1000;
    const windowIndex = Math.floor(nowSeconds / window);
    const retryAfterSeconds = Math.max(1, Math.ceil((windowIndex + 1) * window - nowSeconds));
    const key = `rl:${cls}:${subject}:${windowIndex}`;
    try {
      const count = Number(await this.counters().consumeWindow(key, units, window + 1));
      return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), retryAfterSeconds };
    } catch (err) {
      this.onError(err);
      return { allowed: true, limit, remaining: limit, retryAfterSeconds: 0 };
    }
  }
}
