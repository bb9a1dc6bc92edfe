import { AppError, looksLikeApiKey, Principal, TokenClaims } from '@em/core';
import { createHmac } from 'node:crypto';
import { LinkedAccount } from './account-directory';
import { CallerHost, clientNetwork, isHostAllowed, isHostAllowedForAnyAddress } from './host-allowlist';
import { ApiKeyLookup } from './api-key-cache';

export interface Credentials {
  apiKey: string | undefined;
  authorization: string | undefined;
}

/** Verifies bearer tokens and finds their account (see core's TokenVerifier and linkAccount). */
export interface AccountTokens {
  verify(token: string): Promise<TokenClaims>;
  link(claims: TokenClaims): Promise<LinkedAccount>;
}

/** The principal and what the rate limiter needs to know of it. */
export interface Authenticated {
  principal: Principal;
  /**
   * Stable id of the caller for rate limits: `key:<id>` or `account:<id>`; for a read-only
   * (browser) key, each visitor's: `key:<id>:client:<address or IPv6 /64>`.
   */
  rateSubject: string;
  /** A browser key's own subject, whose ceiling all its visitors share (RateLimiter.sharedLimit). */
  sharedRateSubject?: string;
  /** The key's own read limit, when it has one. */
  readLimit?: number;
  /**
   * Set when nothing of this decision came from the client address but a browser key's visitor subject (the key
   * was not let in by an IP entry of its allowlist): the same credential and headers from any address are
   * authenticated alike. `visitorPrefix` + the address's `clientNetwork` is then each visitor's rate subject.
   */
  anyAddress?: { visitorPrefix?: string };
}

/**
 * Establishes who calls: an `X-API-Key` (the key's organisation), or an OAuth bearer token (its
 * account and memberships). Both at once is a 400, neither a 401; an unknown or inactive key, or
 * a host not on the key's allowlist, a 403; a malformed, expired or unverifiable token a 401.
 */
export class Authenticator {
  constructor(
    private readonly keys: ApiKeyLookup,
    private readonly tokens: AccountTokens,
    /** Keys the visitors' opaque ids (the principal signing secret: the same visitor on every gateway replica). */
    private readonly visitorIdSecret: string,
  ) {}

  async authenticate(credentials: Credentials, caller: CallerHost, requestId: string): Promise<Authenticated> {
    const apiKey = credentials.apiKey?.trim();
    const authorization = credentials.authorization?.trim();
    if (apiKey && authorization)
      throw new AppError('BAD_REQUEST', 'Send either an API key or a bearer token, not both');
    if (!apiKey && !authorization)
      throw new AppError('UNAUTHENTICATED', 'Credentials are missing: send the X-API-Key header');
    if (authorization) return this.fromBearer(authorization, requestId);

    if (!looksLikeApiKey(apiKey!)) throw new AppError('FORBIDDEN', 'The API key is invalid');
    const key = await this.keys.find(apiKey!);
    if (!key) throw new AppError('FORBIDDEN', 'The API key is invalid');
    if (!key.active) throw new AppError('FORBIDDEN', 'The API key is inactive');
    if (!isHostAllowed(key.allowedHosts, caller))
      throw new AppError('FORBIDDEN', 'The calling host is not approved for this API key');
    this.keys.touch(key.id);
    // A browser key is public and shared by every participant: one budget for all would let one
    // visitor (or a busy race day) spend everybody's.
    const visitor = key.readOnly ? clientNetwork(caller.clientIp) : null;
    const visitorPrefix = `key:${key.id}:client:`;
    const rateSubject = visitor ? `${visitorPrefix}${visitor}` : `key:${key.id}`;
    const principal: Principal = {
      orgId: key.orgId,
      kind: 'api_key',
      apiKeyId: key.id,
      scopes: [],
      requestId,
      ...(key.readOnly ? { readOnly: true } : {}),
      ...(key.eventIds ? { eventIds: key.eventIds } : {}),
      // The visitor as an opaque id: their address goes no further than the gateway's rate limits (a job keeps it).
      ...(visitor ? { caller: this.visitorId(rateSubject) } : {}),
    };
    return {
      principal,
      rateSubject,
      ...(visitor ? { sharedRateSubject: `key:${key.id}` } : {}),
      readLimit: key.rateLimit ?? undefined,
      ...(isHostAllowedForAnyAddress(key.allowedHosts, caller)
        ? { anyAddress: key.readOnly ? { visitorPrefix } : {} }
        : {}),
    };
  }

  /** A keyed hash: a plain one of an IPv4 address is undone by trying all 2^32. */
  private visitorId(rateSubject: string): string {
    return createHmac('sha256', this.visitorIdSecret).update(`visitor:${rateSubject}`).digest('base64url').slice(0, 22);
  }

  /** Whether authenticating these credentials reaches beyond the key cache: a key lookup in Postgres, a bearer token. */
  looksUp(credentials: Credentials): boolean {
    if (credentials.authorization?.trim()) return true;
    const apiKey = credentials.apiKey?.trim();
    return !!apiKey && looksLikeApiKey(apiKey) && !this.keys.isCached(apiKey);
  }

  private async fromBearer(authorization: string, requestId: string): Promise<Authenticated> {
    const token = /^Bearer\s+([A-Za-z0-9\-_.~+/]+=*)$/i.exec(authorization)?.[1];
    if (!token) throw new AppError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <token>"');
    const claims = await this.tokens.verify(token);
    const account = await this.tokens.link(claims);
    return {
      principal: {
        orgId: null,
        kind: 'account',
        accountId: account.accountId,
        scopes: claims.scopes,
        orgRoles: account.orgRoles,
        ...(account.platformAdmin && { platformAdmin: true }),
        requestId,
      },
      rateSubject: `account:${account.accountId}`,
    };
  }
}
