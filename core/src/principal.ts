import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors';

/** Who is calling, as established by the gateway. Subgraphs trust only a signed principal. */
export interface Principal {
  /** The organisation the credential belongs to (API keys); absent for an account token. */
  orgId: number | null;
  kind: 'api_key' | 'account';
  apiKeyId?: number;
  /** An API key limited to reads and searches (see `assertCanWrite`). */
  readOnly?: boolean;
  /** An API key limited to these events of its organisation (see `assertEventInScope`); absent = every event. */
  eventIds?: number[];
  accountId?: number;
  scopes: string[];
  /** For an account: its role in each organisation it is an active member of. */
  orgRoles?: Record<number, 'admin' | 'user'>;
  /** For an account: a platform administrator (creates organisations, administers every one). */
  platformAdmin?: boolean;
  /** Request id carried through the services for logs. */
  requestId?: string;
  /**
   * A browser key's visitor, as an opaque id (a hash of the gateway's rate subject for them: the key and the address's
   * network): a shared queue's fair share is counted per visitor.
   * Absent for server keys and accounts, which speak for many people the platform cannot tell apart: their jobs go
   * in arrival order.
   */
  caller?: string;
}

/** The organisations a principal acts for: an API key's own, or an account's memberships. */
export function principalOrganisations(principal: Principal): number[] {
  if (principal.orgId !== null) return [principal.orgId];
  return Object.keys(principal.orgRoles ?? {}).map(Number);
}

export const PRINCIPAL_HEADER = 'x-principal';

interface SignedPayload extends Principal {
  exp: number;
}

const b64 = (buf: Buffer | string) => Buffer.from(buf).toString('base64url');
const mac = (data: string, secret: string) => createHmac('sha256', secret).update(data).digest();

/** A compact HMAC-SHA256 token: base64url(json).base64url(mac), valid for `ttlSeconds`. */
export function signPrincipal(principal: Principal, secret: string, ttlSeconds: number, now = Date.now()): string {
  const payload: SignedPayload = { ...principal, exp: Math.floor(now / 1000) + ttlSeconds };
  const body = b64(JSON.stringify(payload));
  return `${body}.${b64(mac(body, secret))}`;
}

export function verifyPrincipal(token: string | undefined | null, secret: string, now = Date.now()): Principal {
  if (!token) throw new AppError('UNAUTHENTICATED', 'This service accepts calls through the gateway only');
  const dot = token.indexOf('.');
  if (dot <= 0) throw new AppError('UNAUTHENTICATED', 'Malformed principal');
  const body = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = mac(body, secret);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new AppError('UNAUTHENTICATED', 'Principal signature is invalid');
  }
  let payload: SignedPayload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SignedPayload;
  } catch {
    throw new AppError('UNAUTHENTICATED', 'Malformed principal');
  }
  if (typeof payload.exp !== 'number' || payload.exp * 1000 < now)
    throw new AppError('UNAUTHENTICATED', 'Principal expired');
  const { exp: _exp, ...principal } = payload;
  return principal;
}
