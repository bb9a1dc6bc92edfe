import type { Redis } from 'ioredis';
import { Config } from '../config';
import type { RateClass } from '../operation-policy';

/**
 * Whom a call is charged to and how much each may spend: the caller's own budget and, for a
 * browser key's visitor, the key's shared ceiling (charged only when the own budget allowed the
 * call). The gateway decides it per credential; the REST adapter reuses it for revalidations.
 */
/** Asked (value `read`) and answered (the grant's JSON) between the REST adapter and the gateway. */
export const RATE_GRANT_HEADER = 'x-em-rate-grant';

export interface RateGrant {
  /** The window the counters are kept in, seconds. */
  window: number;
  subject: string;
  limit: number;
  shared?: { subject: string; limit: number };
  /**
   * The gateway's failed-authentication throttle (window, limit) and the client address it counts this caller's
   * failures under: a grant never serves an address it refuses.
   */
  failures?: { window: number; limit: number; address?: string };
  /**
   * Given by the gateway when its decision would be the same from any client address (same credential, origin,
   * referer): the grant may serve the key's other visitors, each charged `visitorPrefix` + its client network
   * when set (a browser key's visitor budget), else the grant's own subject.
   */
  anyAddress?: { visitorPrefix?: string };
}

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
  private counters(): Redis & {
    consumeWindow(key: string, units: number, ttlSeconds: number): Promise<number>;
    consumeWindows(own: string, shared: string, units: number, ttlSeconds: number, ownLimit: number): Promise<number[]>;
    consumeWindowsIf(
      condition: string,
      own: string,
      shared: string,
      failures: string,
      previousFailures: string,
      units: number,
      ttlSeconds: number,
      ownLimit: number,
      expected: string,
      failureLimit: number,
    ): Promise<Array<number | string | null>>;
  } {
    if (!('consumeWindow' in this.redis)) {
      this.redis.defineCommand('consumeWindow', { numberOfKeys: 1, lua: `${CHARGE_LUA} return charge(KEYS[1])` });
      // The own budget, then the shared one only when the own allowed the call: both in one round trip.
      this.redis.defineCommand('consumeWindows', {
        numberOfKeys: 2,
        lua: `${CHARGE_LUA} local own = charge(KEYS[1]) if own > tonumber(ARGV[3]) then return {own} end
          return {own, charge(KEYS[2])}`,
      });
      // The same charge, only when KEYS[1] still holds ARGV[4] (else nothing is charged and its value returned)
      // and, when ARGV[5] > 0, the failure counts at KEYS[4] and KEYS[5] together are under ARGV[5] (else nothing is
      // charged: -2).
      this.redis.defineCommand('consumeWindowsIf', {
        numberOfKeys: 5,
        lua: `${CHARGE_LUA} local value = redis.call('GET', KEYS[1])
          if value ~= ARGV[4] then return {-1, value} end
          local failureLimit = tonumber(ARGV[5])
          if failureLimit > 0 then
            local failures = tonumber(redis.call('GET', KEYS[4]) or '0') + tonumber(redis.call('GET', KEYS[5]) or '0')
            if failures >= failureLimit then return {-2} end
          end
          local own = charge(KEYS[2]) if own > tonumber(ARGV[3]) or KEYS[3] == KEYS[2] then return {own} end
          return {own, charge(KEYS[3])}`,
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

  /** The window counters are kept in, seconds. */
  get window(): number {
    return this.cfg.RATE_LIMIT_WINDOW_SECONDS;
  }

  /** Charges `units` calls (an operation with several face-matching fields costs one each). */
  async consume(
    cls: RateClass,
    subject: string,
    limit = this.defaultLimit(cls),
    units = 1,
    now = Date.now(),
    window = this.cfg.RATE_LIMIT_WINDOW_SECONDS,
  ): Promise<RateDecision> {
    const { index, retryAfterSeconds } = windowOf(now, window);
    try {
      const count = Number(await this.counters().consumeWindow(`rl:${cls}:${subject}:${index}`, units, window + 1));
      return decisionOf(count, limit, retryAfterSeconds);
    } catch (err) {
      this.onError(err);
      return { allowed: true, limit, remaining: limit, retryAfterSeconds: 0 };
    }
  }

  /**
   * Charges a grant: the own budget, then the shared one only when the own allowed the call (a
   * visitor refused spends nothing of the others'), in one round trip to Redis.
   */
  async consumeGrant(cls: RateClass, grant: RateGrant, units = 1, now = Date.now()): Promise<RateDecision> {
    if (!grant.shared) return this.consume(cls, grant.subject, grant.limit, units, now, grant.window);
    const { index, retryAfterSeconds } = windowOf(now, grant.window);
    const key = (subject: string) => `rl:${cls}:${subject}:${index}`;
    try {
      const [own, shared] = (
        await this.counters().consumeWindows(
          key(grant.subject),
          key(grant.shared.subject),
          units,
          grant.window + 1,
          grant.limit,
        )
      ).map(Number);
      return shared === undefined
        ? decisionOf(own, grant.limit, retryAfterSeconds)
        : decisionOf(shared, grant.shared.limit, retryAfterSeconds);
    } catch (err) {
      this.onError(err);
      return { allowed: true, limit: grant.limit, remaining: grant.limit, retryAfterSeconds: 0 };
    }
  }

  /**
   * Charges a grant only while `condition.key` holds `condition.value` (an event's content version the
   * grant was given at): the check and the charge in one round trip. When the key holds something else,
   * nothing is charged and its value is returned. With `unlessFailed`, nothing is charged either (`stale`, no
   * value) while the failure counts at its two keys together have reached its limit (an address the gateway's
   * failed-authentication throttle refuses, `failedAuthCounters`). Unlike `consumeGrant`, a Redis failure is thrown: the caller has a slower path that
   * checks again.
   */
  async consumeGrantIf(
    cls: RateClass,
    grant: RateGrant,
    condition: { key: string; value: string },
    units = 1,
    now = Date.now(),
    unlessFailed?: { current: string; previous: string; limit: number },
  ): Promise<ConditionalDecision> {
    const { index, retryAfterSeconds } = windowOf(now, grant.window);
    const key = (subject: string) => `rl:${cls}:${subject}:${index}`;
    const own = key(grant.subject);
    const [first, second] = await this.counters().consumeWindowsIf(
      condition.key,
      own,
      grant.shared ? key(grant.shared.subject) : own,
      unlessFailed?.current ?? condition.key,
      unlessFailed?.previous ?? condition.key,
      units,
      grant.window + 1,
      grant.limit,
      condition.value,
      unlessFailed?.limit ?? 0,
    );
    if (Number(first) === -2) return { stale: true, current: null };
    if (Number(first) === -1) return { stale: true, current: typeof second === 'string' ? second : null };
    return second === undefined || second === null
      ? decisionOf(Number(first), grant.limit, retryAfterSeconds)
      : decisionOf(Number(second), grant.shared!.limit, retryAfterSeconds);
  }
}

/** What a conditional charge found: the decision, or (nothing charged) the value the condition's key holds. */
export type ConditionalDecision = RateDecision | { stale: true; current: string | null };

/** Increments a window's counter by ARGV[1] and gives a new one its expiry (ARGV[2] seconds). */
const CHARGE_LUA =
  "local function charge(key) local count = redis.call('INCRBY', key, ARGV[1]) " +
  "if count == tonumber(ARGV[1]) then redis.call('EXPIRE', key, ARGV[2]) end return count end";

function windowOf(now: number, window: number): { index: number; retryAfterSeconds: number } {
  const nowSeconds = now / 1000;
  const index = Math.floor(nowSeconds / window);
  return { index, retryAfterSeconds: Math.max(1, Math.ceil((index + 1) * window - nowSeconds)) };
}

function decisionOf(count: number, limit: number, retryAfterSeconds: number): RateDecision {
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), retryAfterSeconds };
}

/** What a refused call is told (the gateway's GraphQL error and the REST adapter's 429 say the same). */
export function rateLimitedMessage(decision: RateDecision, cls: RateClass): string {
  const calls = cls === 'matching' ? 'face-matching calls' : 'calls';
  return `Rate limit exceeded (${decision.limit} ${calls} per window); retry in ${decision.retryAfterSeconds} s`;
}

/** The grant of a caller for one class: its own limit (a key's read limit, else the default) and a browser key's shared one. */
export function rateGrantOf(
  limiter: Pick<RateLimiter, 'defaultLimit' | 'sharedLimit' | 'window'>,
  cls: RateClass,
  caller: { rateSubject: string; sharedRateSubject?: string; readLimit?: number },
): RateGrant {
  const limit = cls === 'read' && caller.readLimit ? caller.readLimit : limiter.defaultLimit(cls);
  return {
    window: limiter.window,
    subject: caller.rateSubject,
    limit,
    ...(caller.sharedRateSubject
      ? { shared: { subject: caller.sharedRateSubject, limit: limiter.sharedLimit(cls) } }
      : {}),
  };
}

/** Charges a grant (RateLimiter.consumeGrant: the own budget, then the shared one, one round trip). */
export function chargeGrant(
  limiter: Pick<RateLimiter, 'consumeGrant'>,
  cls: RateClass,
  grant: RateGrant,
  units = 1,
): Promise<RateDecision> {
  return limiter.consumeGrant(cls, grant, units);
}
