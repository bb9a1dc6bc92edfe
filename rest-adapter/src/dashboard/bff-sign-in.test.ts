import { createLogger } from '@em/core';
import { startRedisConnection } from '@em/core/testing';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
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

  it('signs in to the events page, not back to the signed-out page nor to a path outside the dashboard', async () => {
    for (const from of [
      '/dashboard/signed-out',
      '/dashboard/signed-out/',
      '//evil.example/dashboard',
      '/api/v1/ext/1',
    ]) {
      const { cookie, state } = await start(`?return=${encodeURIComponent(from)}`);
      const res = await callback(`state=${state}&code=code-from-${encodeURIComponent(from)}`, cookie);
      expect(await res.text()).toContain('url=/dashboard/events"');
    }
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

/** The page's live connection (photo statuses) passed to the gateway: it lasts no longer than the session. */
describe('dashboard live connection', () => {
  let stopRedis: () => void;
  let redis: Awaited<ReturnType<typeof startRedisConnection>>['redis'];
  let gateway: http.Server;
  let server: http.Server;
  let port: number;
  let sessions: SessionStore;
  const sockets: Duplex[] = [];

  beforeAll(async () => {
    ({ redis, stop: stopRedis } = await startRedisConnection());
    sessions = new SessionStore(redis);
    // A gateway that accepts every subscription connection and keeps it open.
    gateway = http.createServer();
    gateway.on('upgrade', (_req, socket) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
      socket.on('error', () => socket.destroy());
      socket.resume(); // reads on, so it sees the adapter close its side
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    const serve = dashboard({
      publicUrl: 'http://localhost/dashboard/',
      distDir: '/nonexistent',
      mediaUrl: 'http://localhost:9000/media',
      storageOrigin: 'http://localhost:9000',
      gatewayUrl: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/graphql`,
      oidc: {} as OidcClient,
      logins: new LoginTransactions('the-dashboard-client-secret'),
      sessions,
      sessionSeconds: 3600,
      liveSessionCheckMs: 100,
      maxUploadBytes: 1 << 20,
      trustProxy: () => false,
      logger: createLogger('bff-live-test'),
    });
    server = http.createServer();
    server.on('upgrade', (req, socket, head) => void serve.upgrade(req, socket, head));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    for (const s of [server, gateway]) s.on('connection', (socket) => sockets.push(socket));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await new Promise<void>((resolve) => gateway.close(() => resolve()));
    stopRedis();
  });

  /** A WebSocket upgrade from the dashboard's page with this session; resolves once the connection is open. */
  const connect = (id: string) =>
    new Promise<Duplex>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        path: '/dashboard/api/graphql',
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          origin: 'http://localhost',
          cookie: `em_dashboard=${id}`,
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'sec-websocket-version': '13',
          'sec-websocket-protocol': 'graphql-transport-ws',
        },
      });
      req.on('upgrade', (_res, socket) => resolve(socket));
      req.on('response', (res) => reject(new Error(`answered ${res.statusCode}`)));
      req.on('error', reject);
      req.end();
    });
  const closed = (socket: Duplex, withinMs: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), withinMs);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
      socket.resume();
    });
  const newSession = (seconds: number) =>
    sessions.create({
      accessToken: 'at',
      idToken: 'it',
      email: 'ada@example.org',
      expiresAt: Date.now() + seconds * 1000,
    });

  it('closes once the session is signed out, and not before', async () => {
    const { id } = await newSession(3600);
    const socket = await connect(id);
    expect(await closed(socket, 500)).toBe(false);
    await sessions.end(id);
    expect(await closed(socket, 2000)).toBe(true);
  });

  it('closes when the session expires', async () => {
    const { id } = await newSession(2);
    const socket = await connect(id);
    expect(await closed(socket, 4000)).toBe(true);
  });
});
