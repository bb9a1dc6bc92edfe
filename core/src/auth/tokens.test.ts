import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '../errors';
import { embeddedIssuerFiles, ensureEmbeddedIssuer, mintAccessToken, readPrivateKey } from './token-issuer';
import { scopesOf, TokenVerifier } from './tokens';

const base = { OAUTH_ISSUER: 'urn:test-issuer', OAUTH_AUDIENCE: 'test-api', OAUTH_JWKS_URL: undefined };

async function status(promise: Promise<unknown>) {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    return (err as AppError).status;
  }
}

describe('embedded issuer and token verification', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'issuer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let verifier: TokenVerifier;
  let key: string;
  const mint = (over: Partial<Parameters<typeof mintAccessToken>[1]> = {}) =>
    mintAccessToken(key, {
      issuer: base.OAUTH_ISSUER,
      audience: base.OAUTH_AUDIENCE,
      subject: 'acct|1',
      email: 'A@Example.org',
      scopes: ['events:read'],
      expiresInSeconds: 60,
      ...over,
    });

  beforeAll(async () => {
    const files = await ensureEmbeddedIssuer(dir);
    key = readPrivateKey(files);
    verifier = new TokenVerifier({ ...base, OAUTH_JWKS_FILE: files.jwksFile });
  });

  it('keeps its key pair between starts', async () => {
    const again = await ensureEmbeddedIssuer(dir);
    expect(readPrivateKey(again)).toBe(key);
    expect(again).toEqual(embeddedIssuerFiles(dir));
  });

  it('verifies what it mints, reading subject, e-mail and sorted scopes', async () => {
    await expect(verifier.verify(await mint({ scopes: ['events:write', 'events:read'] }))).resolves.toEqual({
      subject: 'acct|1',
      email: 'a@example.org',
      emailVerified: true,
      scopes: ['events:read', 'events:write'],
    });
  });

  it('refuses a token without exp with 401; reads email_verified only when it is true', async () => {
    const { SignJWT, importPKCS8 } = await import('jose');
    const sign = async (claims: Record<string, unknown>, exp: boolean) => {
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'embedded-1' })
        .setIssuer(base.OAUTH_ISSUER)
        .setAudience(base.OAUTH_AUDIENCE)
        .setSubject('s');
      if (exp) jwt.setExpirationTime('1m');
      return jwt.sign(await importPKCS8(key, 'RS256'));
    };
    await expect(
      verifier.verify(await sign({ email: 'a@b.example', email_verified: true }, false)),
    ).rejects.toMatchObject({ status: 401, message: expect.stringMatching(/exp/) });
    expect(
      (await verifier.verify(await sign({ email: 'a@b.example', email_verified: 'true' }, true))).emailVerified,
    ).toBe(true);
    for (const verified of [undefined, false, 'false', 1]) {
      expect(
        (await verifier.verify(await sign({ email: 'a@b.example', email_verified: verified }, true))).emailVerified,
      ).toBe(false);
    }
  });

  it('refuses expired tokens, other issuers and audiences, and garbage with 401', async () => {
    expect(await status(verifier.verify(await mint({ expiresInSeconds: -120 })))).toBe(401);
    expect(await status(verifier.verify(await mint({ issuer: 'urn:other' })))).toBe(401);
    expect(await status(verifier.verify(await mint({ audience: 'other-api' })))).toBe(401);
    expect(await status(verifier.verify('a.b.c'))).toBe(401);
    const unconfigured = new TokenVerifier({ ...base, OAUTH_JWKS_FILE: undefined });
    expect(await status(unconfigured.verify(await mint()))).toBe(401);
  });

  it('reads scopes from `scope` strings and `scp` arrays', () => {
    expect(scopesOf({ scope: 'b a  a' })).toEqual(['a', 'b']);
    expect(scopesOf({ scp: ['x', 'y'] })).toEqual(['x', 'y']);
    expect(scopesOf({})).toEqual([]);
  });
});
