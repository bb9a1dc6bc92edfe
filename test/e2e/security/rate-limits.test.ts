import { randomUUID } from 'node:crypto';
import { closeDb, fixtures, info, sql } from '../support/platform';

/**
 * Issue 13 #4: face matching is charged per root field after fragments are opened, and rejected
 * operations count too. The e2e platform allows 8 face-matching calls per 5 s window.
 */
describe('#4 rate limits cannot be dodged', () => {
  const MATCHING = 8;
  const WINDOW_MS = 5000;
  let orgId: number;
  let eventId: number;

  beforeAll(async () => {
    orgId = (await fixtures.organisation()).orgId;
    eventId = await fixtures.event(orgId, { videoSearch: true, videoSelfieClipping: true });
  });
  afterAll(closeDb);

  async function gql(key: string, query: string, clientAddress?: string): Promise<{ status: number; code?: string }> {
    // The gateway trusts X-Forwarded-For from loopback (TRUST_PROXY), as it trusts the REST adapter's.
    const forwarded: Record<string, string> = clientAddress ? { 'x-forwarded-for': clientAddress } : {};
    const res = await fetch(info.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, ...forwarded },
      body: JSON.stringify({ query }),
    });
    const body = (await res.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
    return { status: res.status, code: body.errors?.[0]?.extensions?.code };
  }

  /** Waits for the start of a fresh rate-limit window, so a burst is counted in one window. */
  async function freshWindow(): Promise<void> {
    await new Promise((r) => setTimeout(r, WINDOW_MS - (Date.now() % WINDOW_MS) + 50));
  }

  async function burst(key: string, query: string, n: number, clientAddress?: string): Promise<string[]> {
    await freshWindow();
    const codes: string[] = [];
    for (let i = 0; i < n; i++) codes.push((await gql(key, query, clientAddress)).code ?? 'ok');
    return codes;
  }

  const search = (extra = '') => `searchFaces(orgId: ${orgId}, eventId: ${eventId}${extra}) { requestId }`;
  const clipping = () => `startVideoClipping(orgId: ${orgId}, eventId: ${eventId}) { requestId }`;

  it('#4 searchFaces wrapped in `... on Mutation { }` is charged as face matching', async () => {
    const key = await fixtures.apiKey(orgId);
    const codes = await burst(key, `mutation { ... on Mutation { ${search()} } }`, MATCHING + 1);
    expect(codes.slice(0, MATCHING)).not.toContain('RATE_LIMITED');
    expect(codes[MATCHING]).toBe('RATE_LIMITED');
  });

  it("a browser (read-only) key's visitor spending their face-matching budget leaves the other visitors theirs", async () => {
    const key = await fixtures.apiKey(orgId, { readOnly: true });
    const codes = await burst(key, `mutation { ${search()} }`, MATCHING + 1, '203.0.113.7');
    expect(codes[MATCHING]).toBe('RATE_LIMITED');
    expect((await gql(key, `mutation { ${search()} }`, '203.0.113.8')).code).not.toBe('RATE_LIMITED');
    // A server key is one caller, wherever it calls from.
    const server = await fixtures.apiKey(orgId);
    expect((await burst(server, `mutation { ${search()} }`, MATCHING, '203.0.113.9')).at(-1)).not.toBe('RATE_LIMITED');
    expect((await gql(server, `mutation { ${search()} }`, '203.0.113.10')).code).toBe('RATE_LIMITED');
  });

  it('#4 searchFaces in a named fragment (nested) is charged as face matching', async () => {
    const key = await fixtures.apiKey(orgId);
    const codes = await burst(
      key,
      `mutation { ...Outer } fragment Outer on Mutation { ...Inner } fragment Inner on Mutation { ${search()} }`,
      MATCHING + 1,
    );
    expect(codes[MATCHING]).toBe('RATE_LIMITED');
  });

  it('#4 aliased startVideoClipping fields cost one unit each', async () => {
    const key = await fixtures.apiKey(orgId);
    await freshWindow();
    const nine = `mutation { ${Array.from({ length: MATCHING + 1 }, (_, i) => `c${i}: ${clipping()}`).join(' ')} }`;
    expect(await gql(key, nine)).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    const key2 = await fixtures.apiKey(orgId);
    const five = `mutation { ${Array.from({ length: 5 }, (_, i) => `c${i}: ${clipping()}`).join(' ')} }`;
    expect((await gql(key2, five)).code).not.toBe('RATE_LIMITED');
    expect((await gql(key2, five)).code).toBe('RATE_LIMITED');
  });

  it('#4 operations that fail to parse, to validate or the operation limits count against the caller', async () => {
    const key = await fixtures.apiKey(orgId, { rateLimit: 3 });
    await freshWindow();
    expect((await gql(key, 'query { ping(')).code).toBe('BAD_REQUEST');
    expect((await gql(key, 'query { noSuchField }')).code).toBe('BAD_REQUEST');
    expect((await gql(key, `query { ${'a { '.repeat(30)}b${' }'.repeat(30)} }`)).code).toBe('BAD_REQUEST');
    expect(await gql(key, `query { ping(orgId: ${orgId}, eventId: ${eventId}) { status } }`)).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
    });
  });

  it('#4 a face search retried with a stored requestId stays a read, field by field', async () => {
    const stored = randomUUID();
    await sql(
      'insert into face_searches (request_id, organisation_id, event_id, matches) values ($1, $2, $3, $4::jsonb)',
      [stored, orgId, eventId, '[]'],
    );
    const key = await fixtures.apiKey(orgId);
    const retry = `mutation { ...R } fragment R on Mutation { ${search(`, requestId: "${stored}"`)} }`;
    expect(await burst(key, retry, MATCHING + 2)).not.toContain('RATE_LIMITED');
    // A cached retry beside a fresh search: the fresh one is still charged.
    const mixed = `mutation { cached: ${search(`, requestId: "${stored}"`)} fresh: ${search()} }`;
    const codes = await burst(await fixtures.apiKey(orgId), mixed, MATCHING + 1);
    expect(codes[MATCHING]).toBe('RATE_LIMITED');
  });
});
