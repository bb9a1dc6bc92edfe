import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { OidcClient } from './oidc-client';

/** The issuer's public address: what browsers use; it does not resolve from here (a container's view of it). */
const PUBLIC_ISSUER = 'http://identity.public.invalid:4007';

describe('OidcClient with an internal URL for its issuer', () => {
  let server: http.Server;
  let internalUrl: string;
  const seen: string[] = [];

  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] };
    server = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const json = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/.well-known/openid-configuration')
        return json({
          issuer: PUBLIC_ISSUER,
          authorization_endpoint: `${PUBLIC_ISSUER}/auth`,
          token_endpoint: `${PUBLIC_ISSUER}/token`,
          jwks_uri: `${PUBLIC_ISSUER}/jwks`,
          revocation_endpoint: `${PUBLIC_ISSUER}/token/revocation`,
          end_session_endpoint: `${PUBLIC_ISSUER}/session/end`,
        });
      if (req.url === '/jwks') return json(jwks);
      if (req.url === '/token/revocation') return json({});
      if (req.url === '/token') {
        void new SignJWT({ nonce: 'n-1', email: 'ada@example.org' })
          .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
          .setIssuer(PUBLIC_ISSUER)
          .setAudience('dashboard')
          .setSubject('ada')
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(privateKey)
          .then((idToken) => json({ access_token: 'at-1', id_token: idToken, expires_in: 600 }));
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    internalUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client = (internal?: string) =>
    new OidcClient({
      issuer: PUBLIC_ISSUER,
      internalUrl: internal,
      clientId: 'dashboard',
      clientSecret: 'a-client-secret-of-32-characters',
      redirectUri: 'http://localhost:8080/dashboard/callback',
      postLogoutRedirectUri: 'http://localhost:8080/dashboard/signed-out',
      scopes: 'openid email',
    });

  it('talks to the issuer at its internal URL and sends the browser to the public one', async () => {
    const oidc = client(internalUrl);
    const authorize = new URL(await oidc.authorizationUrl('s-1', 'n-1', 'c-1'));
    expect(authorize.origin + authorize.pathname).toBe(`${PUBLIC_ISSUER}/auth`);
    const tokens = await oidc.exchange('code-1', 'verifier-1', 'n-1');
    expect(tokens).toMatchObject({ accessToken: 'at-1', email: 'ada@example.org', expiresInSeconds: 600 });
    await expect(oidc.revoke('at-1', 'access_token')).resolves.toBe(true);
    expect(await oidc.endSessionUrl('id-1')).toMatch(new RegExp(`^${PUBLIC_ISSUER}/session/end\\?`));
    expect(seen).toEqual([
      'GET /.well-known/openid-configuration',
      'POST /token',
      'GET /jwks',
      'POST /token/revocation',
    ]);
  });

  it('without an internal URL, calls the public one (here out of reach: the provider cannot be reached)', async () => {
    await expect(client().authorizationUrl('s-1', 'n-1', 'c-1')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});
