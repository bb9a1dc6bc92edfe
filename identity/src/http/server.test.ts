import { connectRedis } from '@em/core';
import { startRedis } from '@em/core/testing';
import { ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';

/**
 * The provider as its process wires it (the built handler and oidc-provider, an ES module jest cannot load), in a
 * child process: the identity package's dist, one member whose password the test knows, a real Redis and the sign-in
 * throttle's production defaults (5 per account, 30 per address). Each attack here failed before its mend.
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
    new SignInThrottle(new MemorySignInCounters(), { perAccount: 5, perAddress: 30, windowSeconds: 1800 }),
    new SignInDevices('a cookie secret of at least 32 characters'),
    { setPasswordLinkHours: 72 },
  );
  await accounts.setPasswordAsOperator('member@club.example', 'the member password');
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const servedOverHttps = issuer.startsWith('https:');
  const provider = await createProvider({
    issuer,
    audience: 'urn:test',
    signingKey: { ...(await exportJWK(privateKey)), kid: 'k', alg: 'RS256', use: 'sig' },
    cookieSecret: 'a cookie secret of at least 32 characters',
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

interface Answer {
  status: number;
  location: string | undefined;
  cookies: string[];
  body: string;
}

/** node:http (fetch may not send a Host header of the caller's choosing). */
function request(
  base: string,
  target: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(target, base), { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          location: res.headers.location,
          cookies: res.headers['set-cookie'] ?? [],
          body,
        }),
      );
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const nameValue = (setCookie: string) => setCookie.split(';')[0];

describe('the identity provider as its process serves it', () => {
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

  const authorize = `/auth?${new URLSearchParams({
    client_id: 'dashboard',
    response_type: 'code',
    scope: 'openid email',
    redirect_uri: 'https://club.example/dashboard/callback',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state: 'some-state',
  })}`;

  /** A fresh sign-in (interaction): its login form's address and the provider's cookies for it. */
  async function startSignIn(base: string) {
    const res = await request(base, authorize);
    expect(res.status).toBe(303);
    return { login: `${res.location}/login`, cookies: res.cookies.map(nameValue) };
  }

  async function postPassword(base: string, password: string, extraCookies: string[] = []) {
    const { login, cookies } = await startSignIn(base);
    return request(base, login, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: [...extraCookies, ...cookies].join('; '),
      },
      body: new URLSearchParams({ email: 'member@club.example', password }).toString(),
    });
  }

  it('marks its cookies Secure when browsers reach it over https through a TLS proxy, whatever a client claims', async () => {
    const base = await serve('https://id.club.example');
    for (const headers of [{}, { 'x-forwarded-proto': 'http' }] as Array<Record<string, string>>) {
      const res = await request(base, authorize, { headers });
      expect(res.status).toBe(303);
      expect(res.location).toMatch(/^\/interaction\//);
      expect(res.cookies.length).toBeGreaterThan(0);
      for (const cookie of res.cookies) expect(cookie).toMatch(/; secure/i);
    }
  }, 120_000);

  it('leaves them unmarked on a plain-http issuer (npm start on localhost), whatever a client claims', async () => {
    const base = await serve('http://localhost:4007');
    const res = await request(base, authorize, { headers: { 'x-forwarded-proto': 'https' } });
    expect(res.status).toBe(303);
    expect(res.cookies.length).toBeGreaterThan(0);
    for (const cookie of res.cookies) expect(cookie).not.toMatch(/; secure/i);
  }, 120_000);

  it("keeps a member's browser signing in when a second em_signin_device cookie (tossed by a sibling host) comes first", async () => {
    const base = await serve('http://localhost:4007');
    // The member signs in from their browser and gets its device cookie.
    const first = await postPassword(base, 'the member password');
    expect(first.status).toBe(303);
    const device = first.cookies.map(nameValue).find((c) => c.startsWith('em_signin_device='));
    expect(device).toBeDefined();
    // Someone who knows the e-mail locks the account for browsers without a device cookie.
    for (let i = 0; i < 5; i++) expect((await postPassword(base, `a guess ${i}`)).status).toBe(401);
    expect((await postPassword(base, 'the member password')).status).toBe(429);
    // The member's browser still signs in: the control works...
    expect((await postPassword(base, 'the member password', [device!])).status).toBe(303);
    // ...until a cookie of the same name with a longer path (Path=/interaction/, set for the parent domain by any
    // sibling host, or by any page on localhost whatever its port) is sent first, as browsers order them: the server
    // reads only the first (parseCookies: "the first of a name wins") and the member is locked out again.
    const tossed = 'em_signin_device=AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    expect((await postPassword(base, 'the member password', [tossed, device!])).status).toBe(303);
  }, 240_000);

  it('builds its URLs from the issuer, not from a Host header a client chose (https issuer behind a TLS proxy)', async () => {
    const base = await serve('https://id.club.example');
    const res = await request(base, '/.well-known/openid-configuration', { headers: { host: 'evil.example' } });
    expect(res.status).toBe(200);
    const discovery = JSON.parse(res.body) as Record<string, string>;
    expect(discovery.issuer).toBe('https://id.club.example');
    // Before the mend: https://evil.example/auth, /token, /jwks... (X-Forwarded-Host is dropped, but Host is believed as is),
    // and the same for the resume URL a finished sign-in redirects to (Location of the login POST).
    expect(discovery.authorization_endpoint).toBe('https://id.club.example/auth');
    expect(discovery.jwks_uri).toBe('https://id.club.example/jwks');
  }, 120_000);

  it('keeps a bounded amount of Redis for anonymous sign-in starts from one address', async () => {
    const base = await serve('http://localhost:4007');
    const client = connectRedis(redis.url);
    try {
      const held = async () => {
        let bytes = 0;
        for (const key of await client.keys('oidc:*')) bytes += (await client.memory('USAGE', key)) ?? 0;
        return bytes;
      };
      const before = await held();
      // An anonymous script: /auth with the dashboard's public client id and redirect URI (both in every sign-in link)
      // and a long state (Node reads a request line and headers up to 16 KB). No cookie, no credential, no password.
      const state = 'x'.repeat(12_000);
      const started = [];
      for (let i = 0; i < 200; i++) {
        const target = authorize.replace('state=some-state', `state=${state}${i}`);
        started.push((await request(base, target)).status);
      }
      const grown = (await held()) - before;
      // Before the mend: every start is a 303 and keeps an Interaction of ~12 KB for its 15 minutes (Interaction TTL 900 s):
      // 200 starts hold ~2.5 MB; at 1,000 requests a second one client holds ~11 GB of the Redis that BullMQ, the
      // rate limits, the dashboard sessions and the sign-in throttle share. The BFF's own sign-in start was fixed for
      // this (docs/security.md "State, nonce, PKCE"); the provider's is the same hole one redirect later.
      // Refused as too long (414) before the provider keeps anything; a made-to-measure one is counted per address.
      expect(started.every((s) => s === 414)).toBe(true);
      expect(grown).toBeLessThan(256 * 1024);
      // Within the length, an address starts at most SIGN_IN_STARTS_PER_ADDRESS (120) in a window.
      const fitting = authorize.replace('state=some-state', `state=${'x'.repeat(1500)}`);
      const statuses: number[] = [];
      for (let i = 0; i < 130; i++) statuses.push((await request(base, fitting)).status);
      expect(statuses.filter((s) => s === 303)).toHaveLength(120);
      expect(statuses.slice(120)).toEqual(Array(10).fill(429));
      expect((await held()) - before).toBeLessThan(120 * 4 * 1024);
    } finally {
      client.disconnect();
    }
  }, 240_000);
});
