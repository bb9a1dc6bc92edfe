import { startRedis } from '@em/core/testing';
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

/**
 * The provider as its process wires it (the built handler and oidc-provider, an ES module jest cannot load), in a
 * child process: the identity package's dist, in-memory accounts, a real Redis; it prints its port.
 */
const SERVE = `
const { createLogger, connectRedis } = require('@em/core');
const { InMemoryAccountsRepository, InMemoryLocalCredentialsRepository } = require('@em/core/testing');
const { exportJWK, generateKeyPair } = require('jose');
const http = require('node:http');
const { LocalAccountsService, SignInDevices, SignInThrottle, MemorySignInCounters } = require('./dist');
const { createProvider } = require('./dist/provider/provider');
const { identityHandler } = require('./dist/http/server');
(async () => {
  const [issuer, redisUrl] = process.argv.slice(1);
  const accounts = new LocalAccountsService(
    new InMemoryAccountsRepository(),
    new InMemoryLocalCredentialsRepository(),
    new SignInThrottle(new MemorySignInCounters(), { perAccount: 5, perAddress: 30, windowSeconds: 60 }),
    new SignInDevices('a cookie secret'),
    { setPasswordLinkHours: 72 },
  );
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const servedOverHttps = issuer.startsWith('https:');
  const provider = await createProvider({
    issuer,
    audience: 'urn:test',
    signingKey: { ...(await exportJWK(privateKey)), kid: 'k', alg: 'RS256', use: 'sig' },
    cookieSecret: 'a cookie secret',
    dashboard: {
      clientId: 'dashboard',
      clientSecret: 'a client secret',
      redirectUri: 'https://club.example/dashboard/callback',
      postLogoutRedirectUri: 'https://club.example/dashboard/signed-out',
    },
    accounts,
    redis: connectRedis(redisUrl),
    accessTokenSeconds: 600,
    servedOverHttps,
  });
  const handler = identityHandler({
    provider, accounts, trustProxy: () => false, logger: createLogger('identity-test'),
    dashboardUrl: 'https://club.example/dashboard/', issuer, servedOverHttps,
  });
  const server = http.createServer(handler).listen(0, '127.0.0.1', () => console.log(server.address().port));
})();
`;

/** The provider's own cookies behind a proxy that ends TLS: the proxy speaks plain HTTP to it. */
describe('the identity provider behind a TLS proxy', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => {
    for (const child of children) child.kill();
    redis.stop();
  });

  async function serve(issuer: string): Promise<string> {
    const child = spawn(process.execPath, ['-e', SERVE, issuer, redis.url], {
      cwd: path.join(__dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    for await (const line of createInterface({ input: child.stdout }))
      if (/^\d+$/.test(line)) return `http://127.0.0.1:${line}`;
    throw new Error('the provider did not start');
  }

  const startSignIn = (base: string, headers: Record<string, string> = {}) =>
    fetch(
      `${base}/auth?${new URLSearchParams({
        client_id: 'dashboard',
        response_type: 'code',
        scope: 'openid email',
        redirect_uri: 'https://club.example/dashboard/callback',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        state: 'some-state',
      })}`,
      { redirect: 'manual', headers },
    );

  it('marks its cookies Secure when browsers reach it over https, whatever a client claims', async () => {
    const base = await serve('https://id.club.example');
    for (const headers of [{}, { 'x-forwarded-proto': 'http' }] as Array<Record<string, string>>) {
      const res = await startSignIn(base, headers);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toMatch(/^\/interaction\//);
      const cookies = res.headers.getSetCookie();
      expect(cookies.length).toBeGreaterThan(0);
      for (const cookie of cookies) expect(cookie).toMatch(/; secure/i);
    }
  });

  it('leaves them unmarked on a plain-http issuer (npm start on localhost), whatever a client claims', async () => {
    const base = await serve('http://localhost:4007');
    const res = await startSignIn(base, { 'x-forwarded-proto': 'https' });
    expect(res.status).toBe(303);
    const cookies = res.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie).not.toMatch(/; secure/i);
  });
});
