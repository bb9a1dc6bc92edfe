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
