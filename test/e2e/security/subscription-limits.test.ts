import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { accessToken, account, closeDb, fixtures, info } from '../support/platform';

/**
 * A graphql-ws connection is no way around the limits of HTTP: each `subscribe` is charged like a query, a connection
 * holds a bounded number of subscriptions, and one address a bounded number of connections.
 */
describe('subscription limits', () => {
  const WINDOW_MS = 5000;
  const SUBSCRIPTIONS_PER_CONNECTION = 20;
  const CONNECTIONS_PER_ADDRESS = 100;
  let orgId: number;
  let eventId: number;
  let adminToken: string;

  beforeAll(async () => {
    orgId = (await fixtures.organisation()).orgId;
    eventId = await fixtures.event(orgId, { videoSearch: true, videoSelfieClipping: true });
    const email = `admin-${randomUUID()}@example.org`;
    await account(email, [[orgId, 'admin']]);
    adminToken = await accessToken({ subject: `s-${randomUUID()}`, email, scopes: ['events:read', 'events:write'] });
  });
  afterAll(closeDb);

  const newAddress = () => `203.0.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;

  /** A graphql-ws connection from a forwarded address, acknowledged; its messages by subscription id. */
  async function connect(params: Record<string, string>, address: string) {
    const socket = new WebSocket(info.gatewayUrl.replace(/^http/, 'ws'), 'graphql-transport-ws', {
      headers: { 'x-forwarded-for': address },
    });
    const messages: Array<{ id?: string; type: string; payload?: unknown }> = [];
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    socket.on('message', (data) => messages.push(JSON.parse((data as Buffer).toString('utf8'))));
    await new Promise<void>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: params })));
      socket.on('message', () => messages.some((m) => m.type === 'connection_ack') && resolve());
      void closed.then((code) => reject(new Error(`closed with ${code}`)));
    });
    const subscribe = (id: string, query: string) =>
      socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query } }));
    /** The code of the subscription's first error, or 'open' when it is still running after `withinMs`. */
    const outcome = async (id: string, withinMs = 3000): Promise<string> => {
      const started = Date.now();
      for (;;) {
        const message = messages.find((m) => m.id === id && m.type !== 'next');
        if (message?.type === 'error')
          return (message.payload as Array<{ extensions?: { code?: string } }>)[0]?.extensions?.code ?? 'error';
        if (message?.type === 'complete') return 'complete';
        if (Date.now() - started > withinMs) return 'open';
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    return { socket, subscribe, outcome, closed };
  }

  it("charges every subscribe message to the caller's read budget", async () => {
    const key = await fixtures.apiKey(orgId, { rateLimit: 4 });
    const { socket, subscribe, outcome } = await connect({ 'x-api-key': key }, newAddress());
    // A fresh rate-limit window, so the burst is counted in one.
    await new Promise((r) => setTimeout(r, WINDOW_MS - (Date.now() % WINDOW_MS) + 50));
    const query = () =>
      `subscription { clipStatus(orgId: ${orgId}, eventId: ${eventId}, requestId: "${randomUUID()}") { status } }`;
    for (let i = 0; i < 10; i++) subscribe(String(i), query());
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => outcome(String(i))));
    expect(outcomes.filter((code) => code === 'RATE_LIMITED')).toHaveLength(6);
    socket.close();
  });

  it('holds at most a bounded number of subscriptions open on one connection', async () => {
    const { socket, subscribe, outcome } = await connect({ authorization: `Bearer ${adminToken}` }, newAddress());
    const feed = `subscription { photoStatus(orgId: ${orgId}, eventId: ${eventId}) { photoId status } }`;
    for (let i = 0; i < SUBSCRIPTIONS_PER_CONNECTION + 3; i++) subscribe(String(i), feed);
    const outcomes = await Promise.all(
      Array.from({ length: SUBSCRIPTIONS_PER_CONNECTION + 3 }, (_, i) => outcome(String(i), 1500)),
    );
    expect(outcomes.filter((o) => o === 'open')).toHaveLength(SUBSCRIPTIONS_PER_CONNECTION);
    expect(outcomes.filter((o) => o === 'RATE_LIMITED')).toHaveLength(3);
    // Once one completes, the connection may open another.
    socket.send(JSON.stringify({ id: '0', type: 'complete' }));
    await new Promise((r) => setTimeout(r, 200));
    subscribe('again', feed);
    expect(await outcome('again', 1500)).toBe('open');
    socket.close();
  });

  it('counts the connections of an IPv6 caller against its /64, so it cannot step through its own network', async () => {
    const network = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:1`;
    const key = await fixtures.apiKey(orgId);
    const open = await Promise.all(
      Array.from({ length: CONNECTIONS_PER_ADDRESS }, (_, i) => connect({ 'x-api-key': key }, `${network}::${i + 1}`)),
    );
    await expect(connect({ 'x-api-key': key }, `${network}:ffff::1`)).rejects.toThrow(/429/);
    for (const c of open) c.socket.close();
  });

  it('closes a connection whose message is larger than a GraphQL request body may be, before reading its credential', async () => {
    const key = await fixtures.apiKey(orgId);
    // 3 MiB, over GRAPHQL_MAX_BODY_BYTES (2 MiB): a socket must not buffer more than an HTTP request may.
    const padding = 'x'.repeat(3 * 1024 * 1024);
    await expect(connect({ 'x-api-key': key, padding }, newAddress())).rejects.toThrow(/closed with 1009/);
    (await connect({ 'x-api-key': key, padding: 'x'.repeat(1024) }, newAddress())).socket.close();
  });

  it('refuses connections from one address beyond the bound, and lets one in again when another closes', async () => {
    const address = newAddress();
    const key = await fixtures.apiKey(orgId);
    const open = await Promise.all(
      Array.from({ length: CONNECTIONS_PER_ADDRESS }, () => connect({ 'x-api-key': key }, address)),
    );
    await expect(connect({ 'x-api-key': key }, address)).rejects.toThrow(/4429|429/);
    // Another address is not affected.
    (await connect({ 'x-api-key': key }, newAddress())).socket.close();
    open[0].socket.close();
    await open[0].closed;
    await new Promise((r) => setTimeout(r, 100));
    const again = await connect({ 'x-api-key': key }, address);
    again.socket.close();
    for (const c of open.slice(1)) c.socket.close();
  });
});
