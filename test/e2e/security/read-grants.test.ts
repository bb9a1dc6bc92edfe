import { randomUUID } from 'node:crypto';
import { hashApiKey } from '@em/core';
import { accessToken, account, closeDb, fixtures, info, restClient, sql } from '../support/platform';
import { SecondGateway, startSecondGateway, startSecondRestAdapter } from './second-gateway';

/**
 * The REST adapter answers a revalidation of a key the gateway authorised moments ago without
 * asking it again (read grants). Here on a gateway and adapter with a key cache (the test
 * platform runs without one): the grant is really used, the key's budget is still charged, and a
 * key deactivated through the API is refused at once.
 */
describe('read grants: revalidations answered by the REST adapter alone', () => {
  let gw2: SecondGateway;
  let rest2: SecondGateway;
  let orgId: number;
  let base: string;
  let adminToken: string;

  beforeAll(async () => {
    // A window of an hour: the budget test must not see its window roll over.
    const env = { API_KEY_CACHE_SECONDS: '60', RATE_LIMIT_WINDOW_SECONDS: '3600' };
    gw2 = await startSecondGateway(env);
    rest2 = await startSecondRestAdapter(gw2.url, env);
    orgId = (await fixtures.organisation()).orgId;
    const eventId = await fixtures.event(orgId);
    base = `/${orgId}/event/${eventId}`;
    await fixtures.photos(eventId, [{ capturedAt: new Date(Date.UTC(2026, 4, 3, 9, 1)) }]);
    const email = `admin-${randomUUID()}@example.org`;
    await account(email, [[orgId, 'admin']]);
    adminToken = await accessToken({ subject: `s-${randomUUID()}`, email, scopes: ['events:read', 'events:write'] });
  }, 120_000);
  afterAll(async () => {
    await rest2?.stop();
    await gw2?.stop();
    await closeDb();
  });

  const api = () => restClient(rest2.url, null);

  async function newKey(rateLimit?: number): Promise<{ key: string; id: number }> {
    const key = await fixtures.apiKey(orgId, { rateLimit });
    const [row] = await sql<{ id: number }>('select id from api_keys where key_hash = $1', [hashApiKey(key)]);
    return { key, id: row.id };
  }

  /** Requests the gateway has answered so far (its /metrics). */
  async function gatewayRequests(): Promise<number> {
    const text = await (await fetch(gw2.url.replace(/\/graphql$/, '/metrics'))).text();
    return [...text.matchAll(/^em_requests_total\{[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  }

  it('asks the gateway once, then answers revalidations alone until the budget is spent: the same 429', async () => {
    const { key } = await newKey(6);
    const first = await api()(`${base}/timeline/days`, { key }); // charged by the gateway: 1 of 6
    expect(first.status).toBe(200);
    const revalidate = () =>
      api()(`${base}/timeline/days`, { key, headers: { 'if-none-match': first.headers.get('etag')! } });
    expect((await revalidate()).status).toBe(304); // the gateway's check, and its grant: 2 of 6
    const before = await gatewayRequests();
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await revalidate()).status);
    expect(statuses).toEqual([304, 304, 304, 304, 429]); // 3..6 of 6, then spent
    expect(await gatewayRequests()).toBe(before);
    const limited = await revalidate();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.message).toMatch(/^Rate limit exceeded \(6 calls per window\); retry in \d+ s$/);
  });

  it('a key deactivated through the API is refused at once, though its grant had not expired', async () => {
    const { key, id } = await newKey();
    const first = await api()(`${base}/images?page_size=5`, { key });
    const revalidate = () =>
      api()(`${base}/images?page_size=5`, { key, headers: { 'if-none-match': first.headers.get('etag')! } });
    expect((await revalidate()).status).toBe(304);
    expect((await revalidate()).status).toBe(304);
    const res = await fetch(info.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({
        query: 'mutation($o: Int!, $k: Int!) { setApiKeyActive(orgId: $o, keyId: $k, active: false) { active } }',
        variables: { o: orgId, k: id },
      }),
    });
    expect((await res.json()).errors).toBeUndefined();
    const started = Date.now();
    let status = 0;
    while (Date.now() - started < 1000 && (status = (await revalidate()).status) !== 403)
      await new Promise((r) => setTimeout(r, 50));
    expect(status).toBe(403);
  });
});

/**
 * A grant the gateway gave one visitor of a key serves the key's other visitors (same key, origin, referer,
 * operation and event) only where the gateway's decision could not differ for them: each visitor is charged its
 * own budget, an address the key's allowlist names never lends its grant, and an address throttled for failed
 * authentications is refused as the gateway refuses it.
 */
describe('read grants shared by the visitors of a key', () => {
  let gw2: SecondGateway;
  let rest2: SecondGateway;
  let orgId: number;
  let base: string;

  beforeAll(async () => {
    const env = {
      API_KEY_CACHE_SECONDS: '60',
      RATE_LIMIT_WINDOW_SECONDS: '3600',
      AUTH_FAILURE_LIMIT: '3',
      AUTH_FAILURE_WINDOW_SECONDS: '3600',
    };
    gw2 = await startSecondGateway(env);
    // The adapter believes the test's X-Forwarded-For, as behind the operator's proxy.
    rest2 = await startSecondRestAdapter(gw2.url, { ...env, TRUST_PROXY: 'loopback' });
    orgId = (await fixtures.organisation()).orgId;
    const eventId = await fixtures.event(orgId);
    base = `/${orgId}/event/${eventId}`;
    await fixtures.photos(eventId, [{ capturedAt: new Date(Date.UTC(2026, 4, 3, 9, 1)) }]);
  }, 120_000);
  afterAll(async () => {
    await rest2?.stop();
    await gw2?.stop();
    await closeDb();
  });

  async function gatewayRequests(): Promise<number> {
    const text = await (await fetch(gw2.url.replace(/\/graphql$/, '/metrics'))).text();
    return [...text.matchAll(/^em_requests_total\{[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  }

  /** A visitor of `key` from `address`: its GET of `path`, revalidating `etag` when given. */
  const visit = (key: string, address: string, path: string, etag?: string, origin = 'http://localhost') =>
    restClient(rest2.url, null)(`${base}${path}`, {
      key,
      headers: {
        'x-forwarded-for': address,
        ...(origin ? { origin } : {}),
        ...(etag ? { 'if-none-match': etag } : {}),
      },
    });

  /** One visitor's answer (kept by the adapter) and a second visitor's revalidation: a grant for any address. */
  async function grantGiven(key: string, path: string): Promise<string> {
    const first = await visit(key, '198.51.100.1', path);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect((await visit(key, '198.51.100.2', path, etag)).status).toBe(304);
    return etag;
  }

  it("a browser key's grant serves its other visitors without the gateway, each charged its own budget", async () => {
    const key = await fixtures.apiKey(orgId, { readOnly: true, allowedHosts: ['localhost'], rateLimit: 3 });
    const etag = await grantGiven(key, '/timeline/days');
    const before = await gatewayRequests();
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await visit(key, '198.51.100.3', '/timeline/days', etag)).status);
    expect(statuses).toEqual([304, 304, 304, 429]); // this visitor's 3 calls, then its own budget is spent
    const limited = await visit(key, '198.51.100.3', '/timeline/days', etag);
    expect(limited.body.message).toMatch(/^Rate limit exceeded \(3 calls per window\); retry in \d+ s$/);
    expect((await visit(key, '198.51.100.4', '/timeline/days', etag)).status).toBe(304); // another visitor's budget
    const kept = await visit(key, '198.51.100.5', '/timeline/days'); // a kept answer, the same way
    expect(kept.status).toBe(200);
    expect(await gatewayRequests()).toBe(before);
  });

  it('never lends a grant to another origin, or to a caller without one', async () => {
    const key = await fixtures.apiKey(orgId, { readOnly: true, allowedHosts: ['localhost'] });
    const etag = await grantGiven(key, '/images?page_size=5');
    expect((await visit(key, '198.51.100.6', '/images?page_size=5', etag, 'http://evil.example')).status).toBe(403);
    expect((await visit(key, '198.51.100.6', '/images?page_size=5', etag, '')).status).toBe(403);
    expect((await visit(key, '198.51.100.7', '/images?page_size=5', etag)).status).toBe(304);
  });

  it("a grant given to an address on the key's allowlist serves no other address", async () => {
    const key = await fixtures.apiKey(orgId, { allowedHosts: ['198.51.100.20'] });
    const first = await visit(key, '198.51.100.20', '/timeline/days', undefined, '');
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect((await visit(key, '198.51.100.20', '/timeline/days', etag, '')).status).toBe(304);
    expect((await visit(key, '198.51.100.20', '/timeline/days', etag, '')).status).toBe(304);
    const other = await visit(key, '198.51.100.21', '/timeline/days', etag, '');
    expect(other.status).toBe(403);
    expect(other.body.message).toBe('The calling host is not approved for this API key');
    expect((await visit(key, '198.51.100.21', '/timeline/days', undefined, '')).status).toBe(403);
  });

  it("a server key's grant is shared with its budget: one budget for every address, as the gateway keeps it", async () => {
    const key = await fixtures.apiKey(orgId, { rateLimit: 4 });
    const etag = await grantGiven(key, '/timeline/days'); // 2 of 4
    const before = await gatewayRequests();
    expect((await visit(key, '198.51.100.30', '/timeline/days', etag)).status).toBe(304); // 3 of 4
    expect((await visit(key, '198.51.100.31', '/timeline/days', etag)).status).toBe(304); // 4 of 4
    expect((await visit(key, '198.51.100.32', '/timeline/days', etag)).status).toBe(429);
    expect(await gatewayRequests()).toBe(before);
  });

  it("an upload's check before it is read is answered from the grant too, the visitor's budget charged", async () => {
    const key = await fixtures.apiKey(orgId, { readOnly: true, allowedHosts: ['localhost'], rateLimit: 2 });
    // A page that is not a number: refused (400) once the caller is authorised, before the operation runs.
    const post = (address: string) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(64)], { type: 'image/jpeg' }), 'selfie.jpg');
      return restClient(rest2.url, null)(`${base}/faces?page=abc`, {
        key,
        method: 'POST',
        body: form,
        headers: { 'x-forwarded-for': address, origin: 'http://localhost' },
      });
    };
    expect((await post('198.51.100.50')).status).toBe(400); // the gateway's check, its grant kept
    const before = await gatewayRequests();
    expect((await post('198.51.100.51')).status).toBe(400);
    expect((await post('198.51.100.51')).status).toBe(400);
    expect(await gatewayRequests()).toBe(before);
    expect((await post('198.51.100.51')).status).toBe(429); // this visitor's 2 reads are spent
  });

  it('an address throttled for failed authentications is refused, though a grant of the key would serve it', async () => {
    const key = await fixtures.apiKey(orgId, { readOnly: true, allowedHosts: ['localhost'] });
    const etag = await grantGiven(key, '/timeline/days');
    const attacker = '198.51.100.40';
    for (let i = 0; i < 3; i++)
      expect((await visit(`em_${'x'.repeat(40)}`, attacker, '/timeline/days')).status).toBe(403);
    const refused = await visit(key, attacker, '/timeline/days', etag);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/^Too many failed authentications from this address/);
    expect((await visit(key, attacker, '/timeline/days')).status).toBe(429);
    expect((await visit(key, '198.51.100.41', '/timeline/days', etag)).status).toBe(304);
  });
});
