import { createLogger } from '@em/core';
import { startRedisConnection } from '@em/core/testing';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dashboard } from './bff';
import { LoginTransactions } from './login-transaction';
import { OidcClient } from './oidc-client';
import { SessionStore } from './session-store';

/** The BFF's sign-in with a stand-in provider: what an anonymous start costs, and what a callback must carry. */
describe('dashboard sign-in', () => {
  let stopRedis: () => void;
  let redis: Awaited<ReturnType<typeof startRedisConnection>>['redis'];
  let server: http.Server;
  let base: string;
  const authorizations: Array<{ state: string; nonce: string; challenge: string }> = [];
  const exchanges: Array<{ code: string; verifier: string; nonce: string }> = [];

  beforeAll(async () => {
    ({ redis, stop: stopRedis } = await startRedisConnection());
    const oidc = {
      authorizationUrl: async (state: string, nonce: string, challenge: string) => {
        authorizations.push({ state, nonce, challenge });
        return `https://idp.example/auth?state=${state}`;
      },
      exchange: async (code: string, verifier: string, nonce: string) => {
        exchanges.push({ code, verifier, nonce });
        return { accessToken: 'at', idToken: 'it', expiresInSeconds: 600, email: 'ada@example.org' };
      },
    } as unknown as OidcClient;
    const serve = dashboard({
      publicUrl: 'http://localhost/dashboard/',
      distDir: '/nonexistent',
      mediaUrl: 'http://localhost:9000/media',
      storageOrigin: 'http://localhost:9000',
      gatewayUrl: 'http://127.0.0.1:1/graphql',
      oidc,
      logins: new LoginTransactions('the-dashboard-client-secret'),
      sessions: new SessionStore(redis),
      sessionSeconds: 3600,
      maxUploadBytes: 1 << 20,
      trustProxy: () => false,
      logger: createLogger('bff-sign-in-test'),
    });
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      void serve(req, res, url.pathname, url.searchParams);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    stopRedis();
  });

  const start = async (query = '') => {
    const res = await fetch(`${base}/dashboard/login${query}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const cookie = res.headers.get('set-cookie')!.split(';')[0];
    return { cookie, state: new URL(res.headers.get('location')!).searchParams.get('state')! };
  };
  const callback = (query: string, cookie?: string) =>
    fetch(`${base}/dashboard/callback?${query}`, { redirect: 'manual', headers: cookie ? { cookie } : {} });

  it('keeps nothing on the server for a sign-in started by anyone', async () => {
    await redis.flushdb();
    for (let i = 0; i < 200; i += 50) await Promise.all(Array.from({ length: 50 }, () => start()));
    expect(await redis.dbsize()).toBe(0);
  });

  it("signs in with the browser's own sign-in: its PKCE verifier and nonce, back to the page it came from", async () => {
    const { cookie, state } = await start('?return=/dashboard/events/7/photos');
    const res = await callback(`state=${state}&code=code-1`, cookie);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('url=/dashboard/events/7/photos');
    expect(res.headers.getSetCookie().some((c) => /^em_dashboard=[\w-]{43};/.test(c))).toBe(true);
    const asked = authorizations.find((a) => a.state === state)!;
    const exchanged = exchanges.at(-1)!;
    expect(exchanged.code).toBe('code-1');
    expect(createHash('sha256').update(exchanged.verifier).digest('base64url')).toBe(asked.challenge);
    expect(exchanged.nonce).toBe(asked.nonce);
  });

  it("refuses a callback without this browser's sign-in: no cookie, another sign-in's state, an altered cookie", async () => {
    const first = await start();
    const second = await start();
    const exchanged = exchanges.length;
    const [name, value] = first.cookie.split('=');
    const altered = `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BA' : 'AA'}`;
    for (const [query, cookie] of [
      [`state=${first.state}&code=c`, undefined],
      [`state=${second.state}&code=c`, first.cookie],
      [`state=${first.state}&code=c`, altered],
      [`code=c`, first.cookie],
    ] as const) {
      const res = await callback(query, cookie);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('does not belong to a sign-in started in this browser');
    }
    expect(exchanges.length).toBe(exchanged);
  });
});
