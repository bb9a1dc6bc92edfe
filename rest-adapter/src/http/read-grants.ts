import { AppError, chargeGrant, LruMap, RateGrant, RateLimiter, rateLimitedMessage } from '@em/core';
import { createHash } from 'node:crypto';

/** What a revalidation is checked against: the credential and caller facts the gateway judged, the operation and the event's version. */
export interface GrantFacts {
  headers: Readonly<Record<string, string>>;
  operation: string;
  orgId: number | null;
  eventId: number;
  version: string;
}

/**
 * Revalidations (304) and kept answers answered without a round trip to the gateway. When the
 * gateway has authorised an API key for an operation on an event, the same key from the same
 * caller (origin, referer, client address) is authorised again for that operation at the same
 * content version, for at most `ttlMs` (the gateway's own key cache lifetime). A key change
 * announced on Redis forgets every grant at once; a new event version (a setting, a flag, the
 * event archived or deleted) is a new fact, so it asks the gateway again. The caller's rate budget
 * is still charged, with the grant the gateway gave for it. Bearer tokens always ask the gateway
 * (an account's roles are not announced when they change).
 */
export class ReadGrants {
  private readonly grants: LruMap<string, { grant: RateGrant; until: number }>;

  constructor(
    private readonly limiter: Pick<RateLimiter, 'consumeGrant'>,
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
      facts.version,
    ];
    return createHash('sha256').update(parts.join('\u0000')).digest('base64url');
  }

  /**
   * Charges a granted caller's budget: true when a grant answered (the caller may have its
   * revalidation), false when the gateway must be asked. A spent budget is the gateway's 429.
   */
  async charge(key: string): Promise<boolean> {
    const kept = this.grants.get(key);
    if (!kept) return false;
    if (kept.until <= this.now()) {
      this.grants.delete(key);
      return false;
    }
    const decision = await chargeGrant(this.limiter, 'read', kept.grant);
    if (!decision.allowed)
      throw new AppError('RATE_LIMITED', rateLimitedMessage(decision, 'read'), {
        retryAfterSeconds: decision.retryAfterSeconds,
      });
    return true;
  }

  keep(key: string, grant: RateGrant): void {
    this.grants.set(key, { grant, until: this.now() + this.ttlMs });
  }

  /** A key changed somewhere (or announcements may have been missed): every grant is asked again. */
  forgetAll(): void {
    this.grants.clear();
  }
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
