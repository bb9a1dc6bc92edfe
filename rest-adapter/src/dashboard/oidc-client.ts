import { AppError } from '@em/core';
import { createRemoteJWKSet, JWTPayload, jwtVerify, JWTVerifyGetKey } from 'jose';
import { createHash, randomBytes } from 'node:crypto';

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  revocation_endpoint?: string;
  end_session_endpoint?: string;
}

export interface OidcClientOptions {
  issuer: string;
  /**
   * Where this server reaches the issuer when the issuer's public URL (the browser's) does not lead there from inside
   * (compose: the embedded provider at http://identity:4007): discovery, the token endpoint, the keys and revocation
   * go there; the browser's endpoints (authorization, end session) stay public.
   */
  internalUrl?: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  postLogoutRedirectUri: string;
  scopes: string;
}

export interface TokenSet {
  accessToken: string;
  idToken: string;
  expiresInSeconds: number;
  email: string | null;
}

/** A PKCE pair (RFC 7636, S256). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * The dashboard's OpenID Connect relying party (a confidential client): discovery, the authorization
 * URL with PKCE, state and nonce, the code exchange with ID token verification (issuer, audience,
 * expiry, nonce), token revocation and the end-session URL. Tokens never leave the server.
 */
export class OidcClient {
  private discovery: Promise<Discovery> | null = null;
  private keys: JWTVerifyGetKey | null = null;

  constructor(private readonly opts: OidcClientOptions) {}

  private async provider(): Promise<Discovery> {
    this.discovery ??= (async () => {
      const url = `${this.serverSide(this.opts.issuer).replace(/\/$/, '')}/.well-known/openid-configuration`;
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (!res.ok) throw new Error(`discovery answered ${res.status}`);
      const doc = (await res.json()) as Discovery;
      if (doc.issuer !== this.opts.issuer)
        throw new Error(`discovery names issuer ${doc.issuer}, expected ${this.opts.issuer}`);
      return {
        ...doc,
        token_endpoint: this.serverSide(doc.token_endpoint),
        jwks_uri: this.serverSide(doc.jwks_uri),
        revocation_endpoint: doc.revocation_endpoint && this.serverSide(doc.revocation_endpoint),
      };
    })().catch((err) => {
      this.discovery = null;
      throw new AppError('UNAVAILABLE', `The identity provider cannot be reached (${(err as Error).message})`);
    });
    return this.discovery;
  }

  /** An issuer URL as this server calls it: under the internal URL when one is set (only the issuer's own URLs). */
  private serverSide(url: string): string {
    const { issuer, internalUrl } = this.opts;
    if (!internalUrl) return url;
    const base = issuer.replace(/\/$/, '');
    if (url !== base && !url.startsWith(`${base}/`)) return url;
    return internalUrl.replace(/\/$/, '') + url.slice(base.length);
  }

  async authorizationUrl(state: string, nonce: string, codeChallenge: string): Promise<string> {
    const url = new URL((await this.provider()).authorization_endpoint);
    const params = {
      response_type: 'code',
      client_id: this.opts.clientId,
      redirect_uri: this.opts.redirectUri,
      scope: this.opts.scopes,
      state,
      nonce,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.href;
  }

  private basicAuth(): string {
    const enc = (s: string) => encodeURIComponent(s);
    return `Basic ${Buffer.from(`${enc(this.opts.clientId)}:${enc(this.opts.clientSecret)}`).toString('base64')}`;
  }

  /** Exchanges the code (with the PKCE verifier) and verifies the ID token and its nonce. */
  async exchange(code: string, codeVerifier: string, nonce: string): Promise<TokenSet> {
    const provider = await this.provider();
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: this.opts.redirectUri,
      code_verifier: codeVerifier,
    });
    const res = await fetch(provider.token_endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: this.basicAuth(),
        accept: 'application/json',
      },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    const tokens = (await res.json().catch(() => ({}))) as {
      access_token?: string;
      id_token?: string;
      expires_in?: number;
      error?: string;
    };
    if (!res.ok || !tokens.access_token || !tokens.id_token) {
      throw new AppError(
        'UNAUTHENTICATED',
        `The identity provider refused the sign-in (${tokens.error ?? res.status})`,
      );
    }
    this.keys ??= createRemoteJWKSet(new URL(provider.jwks_uri), { cooldownDuration: 30_000, timeoutDuration: 5_000 });
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(tokens.id_token, this.keys, {
        issuer: this.opts.issuer,
        audience: this.opts.clientId,
        algorithms: ['RS256', 'ES256', 'PS256', 'EdDSA'],
        clockTolerance: 30,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch {
      throw new AppError('UNAUTHENTICATED', 'The ID token is not valid for this dashboard');
    }
    if (payload.nonce !== nonce)
      throw new AppError('UNAUTHENTICATED', 'The ID token does not answer this sign-in (nonce)');
    return {
      accessToken: tokens.access_token,
      idToken: tokens.id_token,
      expiresInSeconds: typeof tokens.expires_in === 'number' && tokens.expires_in > 0 ? tokens.expires_in : 300,
      email: typeof payload.email === 'string' ? payload.email : null,
    };
  }

  /** Revokes a token at the provider (RFC 7009); a provider without revocation, or a failure, is reported, not thrown. */
  async revoke(token: string, hint: 'access_token' | 'refresh_token'): Promise<boolean> {
    const provider = await this.provider().catch(() => null);
    if (!provider?.revocation_endpoint) return false;
    const res = await fetch(provider.revocation_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: this.basicAuth() },
      body: new URLSearchParams({ token, token_type_hint: hint }),
      signal: AbortSignal.timeout(5000),
    }).catch(() => null);
    return !!res?.ok;
  }

  /** Where the browser ends its session at the provider (RP-initiated logout), or null when it has none. */
  async endSessionUrl(idTokenHint: string): Promise<string | null> {
    const provider = await this.provider().catch(() => null);
    if (!provider?.end_session_endpoint) return null;
    const url = new URL(provider.end_session_endpoint);
    url.searchParams.set('id_token_hint', idTokenHint);
    url.searchParams.set('post_logout_redirect_uri', this.opts.postLogoutRedirectUri);
    url.searchParams.set('client_id', this.opts.clientId);
    return url.href;
  }
}
