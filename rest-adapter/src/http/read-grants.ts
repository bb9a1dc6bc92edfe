import {
  AppError,
  clientNetwork,
  contentVersionKey,
  failedAuthCounters,
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

/** Where a caller's grant may be kept: under its own address, or for every address (a grant that says so). */
export interface GrantKeys {
  own: string;
  anyAddress: string;
  /** The client address the adapter forwards to the gateway (resolved through TRUST_PROXY). */
  address: string;
}

interface KeptGrant {
  grant: RateGrant;
  version: string;
  until: number;
}

/**
 * Revalidations (304) and kept answers answered without a round trip to the gateway. When the
 * gateway has authorised an API key for an operation on an event, the same key from the same
 * caller (origin, referer, client address) is authorised again for that operation at the same
 * content version, for at most `ttlMs` (the gateway's own key cache lifetime). A grant the gateway
 * says holds for any address (no IP entry of the key's allowlist let the call in) is kept without the
 * address and serves every visitor with the same key, origin and referer, each charged its own visitor
 * budget (the gateway's subject rule, `clientNetwork`). Every charge first checks the address against the
 * gateway's failed-authentication throttle, in the same Redis script. A key change
 * announced on Redis forgets every grant at once; a new event version (a setting, a flag, the
 * event archived or deleted) is a new fact, so it asks the gateway again. Bearer tokens always ask the gateway
 * (an account's roles are not announced when they change). A grant remembers the version it was given
 * at, so a revalidation can check that version and charge the budget in one round trip to Redis.
 */
export class ReadGrants {
  private readonly grants: LruMap<string, KeptGrant>;

  constructor(
    private readonly limiter: Pick<RateLimiter, 'consumeGrantIf'>,
    private readonly ttlMs: number,
    capacity = 20_000,
    private readonly now: () => number = Date.now,
  ) {
    this.grants = new LruMap(capacity);
  }

  /** The grant's keys, or null when this caller is never answered alone. */
  keyOf(facts: GrantFacts): GrantKeys | null {
    const { headers } = facts;
    const address = headers['x-forwarded-for'];
    if (this.ttlMs <= 0 || !headers['x-api-key'] || headers.authorization || !address) return null;
    const parts = [
      headers['x-api-key'],
      headers.origin ?? '',
      headers.referer ?? '',
      facts.operation,
      facts.orgId ?? '',
      facts.eventId,
    ].join('\u0000');
    // One digest for both: the own key adds the address (resolved here, bounded), which no shared key holds.
    const shared = createHash('sha256').update(parts).digest('base64url');
    return { own: `${shared}\u0000${address}`, anyAddress: shared, address };
  }

  /** The content version a live grant was given at (what the caller's ETag would name), or null. */
  versionOf(keys: GrantKeys): string | null {
    return this.find(keys)?.kept.version ?? null;
  }

  /**
   * Charges a granted caller's budget while the event is still at the grant's version and the address is not
   * throttled (one Redis script): true when the caller may have its answer; false when the version moved on or
   * the address is throttled (nothing charged) or there is no grant, and the gateway must be asked. A spent
   * budget is the gateway's 429; a Redis failure is thrown.
   */
  async charge(keys: GrantKeys, eventId: number): Promise<boolean> {
    const found = this.find(keys);
    if (!found) return false;
    const grant = found.anyAddress ? visitorGrant(found.kept.grant, keys.address) : found.kept.grant;
    if (!grant) return false;
    const condition = { key: contentVersionKey(eventId), value: found.kept.version };
    const now = this.now();
    const { failures } = grant;
    // A kept own grant: the address the gateway counts failures under; a shared one is kept only where they agree.
    const counted = found.anyAddress ? keys.address : (failures?.address ?? keys.address);
    const counters = failures && failedAuthCounters(counted, failures.window, now);
    const unlessFailed = counters && { current: counters.current, previous: counters.previous, limit: failures.limit };
    const decision = await this.limiter.consumeGrantIf('read', grant, condition, 1, now, unlessFailed);
    if ('stale' in decision) return false;
    refuseWhenSpent(decision);
    return true;
  }

  /**
   * Keeps the gateway's grant for this caller; for every address when the gateway said it holds for any and saw the
   * address this adapter forwards (else its failure counts and visitor budgets are another address's).
   */
  keep(keys: GrantKeys, grant: RateGrant, version: string): void {
    const forAny =
      grant.anyAddress &&
      grant.failures?.address === keys.address &&
      visitorGrant(grant, keys.address)?.subject === grant.subject;
    this.grants.set(forAny ? keys.anyAddress : keys.own, { grant, version, until: this.now() + this.ttlMs });
  }

  /** A key changed somewhere (or announcements may have been missed): every grant is asked again. */
  forgetAll(): void {
    this.grants.clear();
  }

  private find(keys: GrantKeys): { kept: KeptGrant; anyAddress: boolean } | null {
    for (const [key, anyAddress] of [
      [keys.own, false],
      [keys.anyAddress, true],
    ] as const) {
      const kept = this.grants.get(key);
      if (!kept) continue;
      if (kept.until > this.now()) return { kept, anyAddress };
      this.grants.delete(key);
    }
    return null;
  }
}

/**
 * A grant given for any address, as it applies to `address`: a browser key's visitor subject from the address
 * (the gateway's rule), else the grant as given; null when the address names no client network.
 */
function visitorGrant(grant: RateGrant, address: string): RateGrant | null {
  const prefix = grant.anyAddress?.visitorPrefix;
  if (prefix === undefined) return grant;
  const network = clientNetwork(address);
  return network ? { ...grant, subject: `${prefix}${network}` } : null;
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
  const { window, shared, failures, anyAddress } = grant as Record<string, unknown>;
  const positive = (v: unknown) => Number.isSafeInteger(v) && (v as number) > 0;
  if (!positive(window)) return null;
  if (shared !== undefined && !budget(shared)) return null;
  const object = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  const address = (v: unknown) => v === undefined || (typeof v === 'string' && v.length <= 100);
  if (
    failures !== undefined &&
    !(object(failures) && positive(failures.window) && positive(failures.limit) && address(failures.address))
  )
    return null;
  if (anyAddress !== undefined) {
    if (!object(anyAddress)) return null;
    const prefix = anyAddress.visitorPrefix;
    if (prefix !== undefined && (typeof prefix !== 'string' || prefix.length > 200)) return null;
  }
  return grant as RateGrant;
}
