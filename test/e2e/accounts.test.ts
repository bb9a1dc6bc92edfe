import { generateKeyPair, exportJWK } from 'jose';
import { randomUUID } from 'node:crypto';
import {
  accessToken,
  account,
  api,
  closeDb,
  expectError,
  expectSuccess,
  fixtures,
  gql,
  info,
  sql,
} from './support/platform';

const bearer = (token: string) => ({ key: null, headers: { authorization: `Bearer ${token}` } });
const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.org`;

describe('GET /account with OAuth bearer tokens', () => {
  let zetaOrg: number;
  let alphaOrg: number;
  let pendingOrg: number;
  let email: string;
  const subject = `idp|runner-${randomUUID()}`;

  beforeAll(async () => {
    zetaOrg = (await fixtures.organisation('Zeta Runners')).orgId;
    alphaOrg = (await fixtures.organisation('Alpha Athletics')).orgId;
    pendingOrg = (await fixtures.organisation('Pending Club')).orgId;
    email = unique('runner');
    await account(email, [
      [zetaOrg, 'user'],
      [alphaOrg, 'admin'],
    ]);
    // Signed in before the pending invitation came (a first sign-in accepts the invitations waiting then).
    expectSuccess(await api('/account', bearer(await accessToken({ subject, email }))));
    await account(email, [[pendingOrg, 'admin', 'pending']]);
  });
  afterAll(closeDb);

  it('returns the account, sorted scopes, and organisations by name without pending invitations', async () => {
    const token = await accessToken({ subject, email, scopes: ['events:write', 'analytics:read', 'events:read'] });
    const data = expectSuccess(await api('/account', bearer(token)));
    expect(data).toEqual({
      account_label: email,
      scopes: ['analytics:read', 'events:read', 'events:write'],
      organisations: [
        { org_id: alphaOrg, name: 'Alpha Athletics', slug: expect.any(String), role: 'admin' },
        { org_id: zetaOrg, name: 'Zeta Runners', slug: expect.any(String), role: 'user' },
      ],
    });
  });

  it('links the token subject to the account on first use (then the subject alone suffices)', async () => {
    const subject = `idp|${randomUUID()}`;
    const other = unique('linked');
    await account(other, []);
    expectSuccess(await api('/account', bearer(await accessToken({ subject, email: other }))));
    const data = expectSuccess(await api('/account', bearer(await accessToken({ subject }))));
    expect(data).toEqual({ account_label: other, scopes: ['events:read'], organisations: [] });
  });

  it('refuses tokens that cannot be trusted with 401', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const foreignKey = { ...(await exportJWK(privateKey)), kid: 'test-idp-1' };
    const cases = [
      await accessToken({ subject: 's', email, expiresIn: -120 }),
      await accessToken({ subject: 's', email, issuer: 'https://other-issuer.example/' }),
      await accessToken({ subject: 's', email, audience: 'another-api' }),
      await accessToken({ subject: 's', email, key: foreignKey }),
      'not.a.jwt',
      'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
    ];
    for (const token of cases) expectError(await api('/account', bearer(token)), 401);
    expectError(await api('/account', { key: null, headers: { authorization: 'Bearer' } }), 401);
    expectError(await api('/account', { key: null, headers: { authorization: 'Basic dXNlcjpwYXNz' } }), 401);
  });

  it('403 without scope events:read, without a linked account, or for an inactive account', async () => {
    expectError(await api('/account', bearer(await accessToken({ subject, email, scopes: ['analytics:read'] }))), 403);
    expect((await api('/account', bearer(await accessToken({ subject, email, scopes: ['events:read'] })))).status).toBe(
      200,
    );
    expectError(
      await api('/account', bearer(await accessToken({ subject: `s-${randomUUID()}`, email: unique('nobody') }))),
      403,
    );
    expectError(
      await api('/account', bearer(await accessToken({ subject: `someone-else-${randomUUID()}`, email }))),
      403,
    );
    const inactive = unique('inactive');
    await account(inactive, [[zetaOrg, 'user']], false);
    expectError(
      await api('/account', bearer(await accessToken({ subject: `s-${randomUUID()}`, email: inactive }))),
      403,
    );
  });

  it('400 with an API key and a bearer token together; 403 with an API key alone', async () => {
    const token = await accessToken({ subject, email });
    expectError(await api('/account', { key: info.demo.apiKey, headers: { authorization: `Bearer ${token}` } }), 400);
    expectError(await api('/account', { key: info.demo.apiKey }), 403);
  });

  it("a member's token with events:read also reads its organisations' events, and only theirs", async () => {
    const token = await accessToken({ subject, email });
    const eventId = await fixtures.event(zetaOrg);
    expect(expectSuccess(await api(`/${zetaOrg}/events`, bearer(token))).events.map((e: any) => e.event_id)).toEqual([
      eventId,
    ]);
    expect(expectSuccess(await api(`/${zetaOrg}/event/${eventId}/ping`, bearer(token)))).toMatchObject({
      status: 'ok',
    });
    expectError(await api(`/${pendingOrg}/events`, bearer(token)), 403);
    expectError(await api(`/${info.demo.orgId}/events`, bearer(token)), 403);
    const noRead = await accessToken({ subject, email, scopes: ['analytics:read'] });
    expectError(await api(`/${zetaOrg}/events`, bearer(noRead)), 403);
  });
});

describe('API key management (GraphQL, organisation admins)', () => {
  let orgId: number;
  let adminToken: string;
  const CREATE = `mutation($o: Int!, $n: String!, $h: [String!], $r: Int) { createApiKey(orgId: $o, name: $n, allowedHosts: $h, rateLimit: $r) { key apiKey { id name prefix active allowedHosts rateLimit lastUsedAt } } }`;

  async function gqlBearer(query: string, variables: Record<string, unknown>, token: string) {
    const res = await fetch(info.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as { data?: any; errors?: Array<{ extensions?: { code?: string } }> };
  }

  beforeAll(async () => {
    orgId = (await fixtures.organisation('Key Admins')).orgId;
    const email = unique('admin');
    await account(email, [[orgId, 'admin']]);
    adminToken = await accessToken({ subject: `s-${randomUUID()}`, email, scopes: ['events:read', 'events:write'] });
  });
  afterAll(closeDb);

  it('creates a key shown once, stored only as a hash, that works on the API', async () => {
    const res = await gqlBearer(
      CREATE,
      { o: orgId, n: 'Website', h: [' Photos.Example.org ', '203.0.113.5'] },
      adminToken,
    );
    expect(res.errors).toBeUndefined();
    const { key, apiKey } = res.data.createApiKey;
    expect(key).toMatch(/^emk_[A-Za-z0-9_-]{40}$/);
    expect(apiKey).toMatchObject({
      name: 'Website',
      active: true,
      allowedHosts: ['photos.example.org', '203.0.113.5'],
      rateLimit: null,
      lastUsedAt: null,
    });
    expect(key.startsWith(apiKey.prefix)).toBe(true);
    const stored = await sql('select key_hash from api_keys where id = $1', [apiKey.id]);
    expect(stored[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await sql('select * from api_keys where id = $1', [apiKey.id]))).not.toContain(key);
    expect((await api(`/${orgId}/events`, { key, headers: { origin: 'https://photos.example.org' } })).status).toBe(
      200,
    );
    const list = await gqlBearer('query($o: Int!) { apiKeys(orgId: $o) { id lastUsedAt } }', { o: orgId }, adminToken);
    expect(list.data.apiKeys.find((k: any) => k.id === apiKey.id).lastUsedAt).not.toBeNull();
  });

  it('deactivates (403 on use), reactivates and deletes keys', async () => {
    const { key, apiKey } = (await gqlBearer(CREATE, { o: orgId, n: 'Temp' }, adminToken)).data.createApiKey;
    const off = await gqlBearer(
      'mutation($o: Int!, $k: Int!) { setApiKeyActive(orgId: $o, keyId: $k, active: false) { active } }',
      { o: orgId, k: apiKey.id },
      adminToken,
    );
    expect(off.data.setApiKeyActive.active).toBe(false);
    expectError(await api(`/${orgId}/events`, { key }), 403);
    await gqlBearer(
      'mutation($o: Int!, $k: Int!) { setApiKeyActive(orgId: $o, keyId: $k, active: true) { active } }',
      { o: orgId, k: apiKey.id },
      adminToken,
    );
    expect((await api(`/${orgId}/events`, { key })).status).toBe(200);
    const del = await gqlBearer(
      'mutation($o: Int!, $k: Int!) { deleteApiKey(orgId: $o, keyId: $k) }',
      { o: orgId, k: apiKey.id },
      adminToken,
    );
    expect(del.data.deleteApiKey).toBe(true);
    expectError(await api(`/${orgId}/events`, { key }), 403);
  });

  it('refuses non-admins, tokens without events:write, API keys, bad hosts, and more keys than allowed', async () => {
    const userEmail = unique('user');
    await account(userEmail, [[orgId, 'user']]);
    const userToken = await accessToken({
      subject: `s-${randomUUID()}`,
      email: userEmail,
      scopes: ['events:read', 'events:write'],
    });
    expect((await gqlBearer(CREATE, { o: orgId, n: 'x' }, userToken)).errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const adminEmail = unique('admin-read-only');
    await account(adminEmail, [[orgId, 'admin']]);
    const readOnly = await accessToken({ subject: `s-${randomUUID()}`, email: adminEmail, scopes: ['events:read'] });
    expect((await api('/account', bearer(readOnly))).status).toBe(200);
    expect((await gqlBearer(CREATE, { o: orgId, n: 'x' }, readOnly)).errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const { key } = (await gqlBearer(CREATE, { o: orgId, n: 'probe' }, adminToken)).data.createApiKey;
    expect((await gql(CREATE, { o: orgId, n: 'by key' }, key)).body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect(
      (await gqlBearer(CREATE, { o: orgId, n: 'bad', h: ['not a host!'] }, adminToken)).errors?.[0].extensions?.code,
    ).toBe('BAD_REQUEST');
    // MAX_API_KEYS_PER_ORG is 5 in this run.
    const existing = Number(
      (await sql('select count(*)::int as n from api_keys where organisation_id = $1', [orgId]))[0].n,
    );
    for (let i = existing; i < 5; i++)
      expect((await gqlBearer(CREATE, { o: orgId, n: `fill ${i}` }, adminToken)).errors).toBeUndefined();
    expect((await gqlBearer(CREATE, { o: orgId, n: 'one too many' }, adminToken)).errors?.[0].extensions?.code).toBe(
      'BAD_REQUEST',
    );
  });
});

describe('rate limits', () => {
  afterAll(closeDb);
  /** RATE_LIMIT_WINDOW_SECONDS is 5 in this run: start a burst at the beginning of a window. */
  const WINDOW_MS = 5000;
  const startOfNextWindow = () => new Promise((r) => setTimeout(r, WINDOW_MS - (Date.now() % WINDOW_MS) + 20));

  it('429 with Retry-After past the budget, without affecting other keys, then recovery', async () => {
    const { orgId } = await fixtures.organisation();
    const limited = await fixtures.apiKey(orgId);
    await sql('update api_keys set rate_limit = 3 where key_hash = encode(sha256($1::bytea), $2)', [limited, 'hex']);
    const other = await fixtures.apiKey(orgId);
    await startOfNextWindow();
    const statuses: number[] = [];
    let limitedResponse: Awaited<ReturnType<typeof api>> | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await api(`/${orgId}/events`, { key: limited });
      statuses.push(res.status);
      if (res.status === 429) limitedResponse = res;
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expectError(limitedResponse!, 429);
    expect(Number(limitedResponse!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await api(`/${orgId}/events`, { key: other })).status).toBe(200);
    await new Promise((r) => setTimeout(r, Number(limitedResponse!.headers.get('retry-after')) * 1000 + 50));
    expect((await api(`/${orgId}/events`, { key: limited })).status).toBe(200);
  });

  it('counts GraphQL calls too, with the HTTP status 429', async () => {
    const { orgId } = await fixtures.organisation();
    const key = await fixtures.apiKey(orgId);
    await sql('update api_keys set rate_limit = 1 where key_hash = encode(sha256($1::bytea), $2)', [key, 'hex']);
    await startOfNextWindow();
    expect((await gql(`{ events(orgId: ${orgId}) { pageInfo { total } } }`, {}, key)).status).toBe(200);
    const second = await gql(`{ events(orgId: ${orgId}) { pageInfo { total } } }`, {}, key);
    expect(second.status).toBe(429);
    expect(second.body.errors?.[0].extensions?.code).toBe('RATE_LIMITED');
  });
});
