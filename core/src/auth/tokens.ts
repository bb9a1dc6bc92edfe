import { readFileSync } from 'node:fs';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  JSONWebKeySet,
  JWTPayload,
  jwtVerify,
  JWTVerifyGetKey,
} from 'jose';
import { Config } from '../config';
import { AppError } from '../errors';

/** What the platform reads from a verified access token. */
export interface TokenClaims {
  subject: string;
  email: string | null;
  /** The issuer vouches that the subject owns `email` (`email_verified: true`). */
  emailVerified: boolean;
  scopes: string[];
}

export const SCOPES = ['analytics:read', 'events:read', 'events:write'] as const;

/** `scope: "a b"` (RFC 8693 / OAuth) or `scp: ["a", "b"]` (some providers). */
export function scopesOf(payload: JWTPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/\s+/) : [];
  return [...new Set(list.filter((s): s is string => typeof s === 'string' && s.length > 0))].sort();
}

/** `email_verified` as providers send it: a boolean, or (some older ones) the string "true". */
function isVerified(claim: unknown): boolean {
  return claim === true || claim === 'true';
}

/**
 * Verifies OAuth access tokens (JWT) against the issuer's keys: a JWKS URL in production (fetched
 * and cached by jose), or the embedded issuer's JWKS file. Issuer, audience, signature and expiry
 * must hold, and the token must carry an expiry (`exp`); anything else is a 401.
 */
export class TokenVerifier {
  private readonly keys: JWTVerifyGetKey;

  constructor(
    private readonly cfg: Pick<Config, 'OAUTH_ISSUER' | 'OAUTH_AUDIENCE' | 'OAUTH_JWKS_URL' | 'OAUTH_JWKS_FILE'>,
  ) {
    if (cfg.OAUTH_JWKS_URL)
      this.keys = createRemoteJWKSet(new URL(cfg.OAUTH_JWKS_URL), { cooldownDuration: 30_000, timeoutDuration: 5_000 });
    else if (cfg.OAUTH_JWKS_FILE)
      this.keys = createLocalJWKSet(JSON.parse(readFileSync(cfg.OAUTH_JWKS_FILE, 'utf8')) as JSONWebKeySet);
    else
      this.keys = async () => {
        throw new AppError('UNAUTHENTICATED', 'Bearer tokens are not configured on this server (OAUTH_JWKS_URL)');
      };
  }

  async verify(token: string): Promise<TokenClaims> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: this.cfg.OAUTH_ISSUER,
        audience: this.cfg.OAUTH_AUDIENCE,
        algorithms: ['RS256', 'ES256', 'PS256', 'EdDSA'],
        clockTolerance: 30,
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (err instanceof errors.JWTExpired) throw new AppError('UNAUTHENTICATED', 'The bearer token has expired');
      if (err instanceof errors.JWTClaimValidationFailed && err.claim === 'exp')
        throw new AppError('UNAUTHENTICATED', 'The bearer token has no expiry (exp)');
      if (err instanceof errors.JOSEError && !(err instanceof errors.JWKSTimeout)) {
        throw new AppError('UNAUTHENTICATED', 'The bearer token is malformed or not valid for this service');
      }
      // The issuer's keys could not be fetched: the token cannot be verified now.
      throw new AppError('UNAUTHENTICATED', 'The bearer token could not be verified');
    }
    if (typeof payload.sub !== 'string' || !payload.sub)
      throw new AppError('UNAUTHENTICATED', 'The bearer token has no subject');
    const email = typeof payload.email === 'string' ? payload.email.toLowerCase() : null;
    return {
      subject: payload.sub,
      email,
      emailVerified: isVerified(payload.email_verified),
      scopes: scopesOf(payload),
    };
  }
}
