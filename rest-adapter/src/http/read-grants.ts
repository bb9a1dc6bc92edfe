import {
  AppError,
  contentVersionKey,
  LruMap,
  RateDecision,
  RateGrant,
  RateLimiter,
  rateLimitedMessage,
} from '@em/core';
import { createHash } from 'node:crypto';

/** What a revalidation is checked against: the credential and caller facts the gateway judged, and the operation. */
export interface GrantFacts {
  headers: Readonly<Record<string, string>>;
  operation: string;
  orgId: number | null;
  eventId: number;
}

/**
 * Revalidations (304) and kept answers answered without a round trip to the gateway. When the
 * gateway has authorised an API key for an operation on an event, the same key from the same
 * caller (origin, referer, client address) is authorised again for that operation at the same
 * content version, for at most `ttlMs` (the gateway's own key cache lifetime). A key change
 * announced on Redis forgets every grant at once; a new event version (a setting, a flag, the
 * event archived or deleted) is a new fact, so it asks the gateway again. The caller's rate budget
 * is still charged, with the grant the gateway gave for it. Bearer tokens always ask the gateway
 * (an account's roles are not announced when they change). A grant remembers the version it was given
 * at, so a revalidation can check that version and charge the budget in one round trip to Redis.
 */
export class ReadGrants {
  private readonly grants: LruMap<string, { grant: RateGrant; version: string; until: number }>;

  constructor(
    private readonly limiter: Pick<RateLimiter, 'consumeGrantIf'>,
    private readonly ttlMs: number,
    capacity = 20_000,
    private readonly now: () => number = Date.now,
  ) {
    this.grants = new LruMap(capacity);
  }

  /** The grant's key, or null when this caller is never answered alone. */
  keyOf(facts: GrantFacts): string | null {
    const { headers } = facts;
    if (this.ttlMs <= 0 || !headers['x-api-key'] || headers.authorization) return null;
    const parts = [
      headers['x-api-key'],
      headers.origin ?? '',
      headers.referer ?? '',
      headers['x-forwarded-for'] ?? '',
      facts.operation,
      facts.orgId ?? '',
      facts.eventId,
    ];
    return createHash('sha256').update(parts.join('\u0000')).digest('base64url');
  }

  /** The content version a live grant was given at (what the caller's ETag would name), or null. */
  versionOf(key: string): string | null {
    const kept = this.grants.get(key);
    if (!kept) return null;
    if (kept.until > this.now()) return kept.version;
    this.grants.delete(key);
    return null;
  }

  /**
   * Charges a granted caller's budget while the event is still at the grant's version (one Redis script):
   * true when the caller may have its answer; false when the version moved on (nothing charged) or there is
   * no grant, and the gateway must be asked. A spent budget is the gateway's 429; a Redis failure is thrown.
   */
  async charge(key: string, eventId: number): Promise<boolean> {
    const kept = this.grants.get(key);
    if (!kept || kept.until <= this.now()) return false;
    const condition = { key: contentVersionKey(eventId), value: kept.version };
    const decision = await this.limiter.consumeGrantIf('read', kept.grant, condition);
    if ('stale' in decision) return false;
    refuseWhenSpent(decision);
    return true;
  }

  keep(key: string, grant: RateGrant, version: string): void {
    this.grants.set(key, { grant, version, until: this.now() + this.ttlMs });
  }

  /** A key changed somewhere (or announcements may have been missed): every grant is asked again. */
  forgetAll(): void {
    this.grants.clear();
  }
}

function refuseWhenSpent(decision: RateDecision): void {
  if (!decision.allowed)
    throw new AppError('RATE_LIMITED', rateLimitedMessage(decision, 'read'), {
      retryAfterSeconds: decision.retryAfterSeconds,
    });
}

/** The gateway's grant header, or null when absent or not what the gateway writes. */
export function parseRateGrant(value: string | string[] | undefined): RateGrant | null {
  if (typeof value !== 'string' || value.length > 1024) return null;
  let grant: unknown;
  try {
    grant = JSON.parse(value);
  } catch {
    return null;
  }
  const budget = (v: unknown): v is { subject: string; limit: number } =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { subject?: unknown }).subject === 'string' &&
    Number.isSafeInteger((v as { limit?: unknown }).limit) &&
    (v as { limit: number }).limit > 0;
  if (!budget(grant)) return null;
  const { window, shared } = grant as { window?: unknown; shared?: unknown };
  if (!Number.isSafeInteger(window) || (window as number) <= 0) return null;
  if (shared !== undefined && !budget(shared)) return null;
  return grant as RateGrant;
}
