import { AppError } from '@em/core';
import { ApiKeyLookup, KeyRecord } from './api-key-cache';
import { AccountTokens, Authenticator } from './authenticator';

function lookup(records: Record<string, KeyRecord>): ApiKeyLookup {
  return { find: async (raw: string) => records[raw] ?? null, touch: () => undefined } as unknown as ApiKeyLookup;
}

/** A key record: active, any host, no limit, a server key of organisation 7 unless said otherwise. */
const record = (fields: Partial<KeyRecord> & Pick<KeyRecord, 'id'>): KeyRecord => ({
  orgId: 7,
  active: true,
  allowedHosts: [],
  rateLimit: null,
  readOnly: false,
  eventIds: null,
  ...fields,
});

const keys: Record<string, KeyRecord> = {
  emk_good_key_123: record({ id: 1, orgId: 7, active: true, allowedHosts: [], rateLimit: 5 }),
  emk_inactive_key: record({ id: 2, orgId: 7, active: false, allowedHosts: [], rateLimit: null }),
  emk_site_bound_1: record({ id: 3, orgId: 7, active: true, allowedHosts: ['photos.example.org'], rateLimit: null }),
  emk_browser_key1: record({ id: 4, orgId: 7, active: true, allowedHosts: [], rateLimit: null, readOnly: true }),
  emk_event_key_12: record({
    id: 5,
    orgId: 7,
    active: true,
    allowedHosts: [],
    rateLimit: null,
    readOnly: true,
    eventIds: [42],
  }),
};
const tokens: AccountTokens = {
  verify: async (token) => {
    if (token !== 'good.token.value') throw new AppError('UNAUTHENTICATED', 'bad token');
    return { subject: 'sub-1', email: 'a@example.org', emailVerified: true, scopes: ['events:read'] };
  },
  link: async () => ({ accountId: 11, orgRoles: { 7: 'admin' }, platformAdmin: false }),
};
const auth = new Authenticator(lookup(keys), tokens, 'visitor-id-secret');
const anywhere = { originHost: null, clientIp: '127.0.0.1' };

async function statusOf(promise: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    return (err as AppError).status;
  }
}

describe('Authenticator', () => {
  it("turns a valid key into the key's organisation", async () => {
    await expect(
      auth.authenticate({ apiKey: 'emk_good_key_123', authorization: undefined }, anywhere, 'r1'),
    ).resolves.toEqual({
      principal: { orgId: 7, kind: 'api_key', apiKeyId: 1, scopes: [], requestId: 'r1' },
      rateSubject: 'key:1',
      readLimit: 5,
      anyAddress: {},
    });
  });

  it('says when its decision holds for any client address: never for a key let in by an IP entry', async () => {
    const ipBound = lookup({
      emk_ip_or_site_1: record({ id: 6, allowedHosts: ['198.51.100.7', 'photos.example.org'] }),
      emk_browser_key1: keys.emk_browser_key1,
    });
    const a = new Authenticator(ipBound, tokens, 'visitor-id-secret');
    const call = (apiKey: string, originHost: string | null, clientIp: string) =>
      a.authenticate({ apiKey, authorization: undefined }, { originHost, clientIp }, 'r');
    expect((await call('emk_ip_or_site_1', null, '198.51.100.7')).anyAddress).toBeUndefined();
    expect((await call('emk_ip_or_site_1', 'evil.example', '198.51.100.7')).anyAddress).toBeUndefined();
    expect((await call('emk_ip_or_site_1', 'photos.example.org', '198.51.100.7')).anyAddress).toEqual({});
    expect(await call('emk_browser_key1', null, '2001:db8::1')).toMatchObject({
      rateSubject: 'key:4:client:2001:db8::/64',
      anyAddress: { visitorPrefix: 'key:4:client:' },
    });
  });

  it("turns a verified bearer token into its account's principal", async () => {
    await expect(
      auth.authenticate({ apiKey: undefined, authorization: 'Bearer good.token.value' }, anywhere, 'r2'),
    ).resolves.toEqual({
      principal: {
        orgId: null,
        kind: 'account',
        accountId: 11,
        scopes: ['events:read'],
        orgRoles: { 7: 'admin' },
        requestId: 'r2',
      },
      rateSubject: 'account:11',
    });
    expect(await statusOf(auth.authenticate({ apiKey: undefined, authorization: 'Bearer' }, anywhere, 'r'))).toBe(401);
    expect(await statusOf(auth.authenticate({ apiKey: undefined, authorization: 'Token abc' }, anywhere, 'r'))).toBe(
      401,
    );
  });

  it('applies the credential rules of the spec', async () => {
    expect(await statusOf(auth.authenticate({ apiKey: undefined, authorization: undefined }, anywhere, 'r'))).toBe(401);
    expect(await statusOf(auth.authenticate({ apiKey: '  ', authorization: undefined }, anywhere, 'r'))).toBe(401);
    expect(
      await statusOf(auth.authenticate({ apiKey: 'emk_good_key_123', authorization: 'Bearer x' }, anywhere, 'r')),
    ).toBe(400);
    expect(await statusOf(auth.authenticate({ apiKey: undefined, authorization: 'Bearer x.y.z' }, anywhere, 'r'))).toBe(
      401,
    );
    expect(
      await statusOf(auth.authenticate({ apiKey: 'emk_unknown_key', authorization: undefined }, anywhere, 'r')),
    ).toBe(403);
    expect(await statusOf(auth.authenticate({ apiKey: 'short', authorization: undefined }, anywhere, 'r'))).toBe(403);
    expect(
      await statusOf(auth.authenticate({ apiKey: 'emk_inactive_key', authorization: undefined }, anywhere, 'r')),
    ).toBe(403);
  });

  it("carries a key's list of events in its principal (the subgraphs' guard keeps it to them)", async () => {
    const { principal } = await auth.authenticate(
      { apiKey: 'emk_event_key_12', authorization: undefined },
      anywhere,
      'r',
    );
    expect(principal).toMatchObject({ orgId: 7, kind: 'api_key', readOnly: true, eventIds: [42] });
    expect(
      (await auth.authenticate({ apiKey: 'emk_good_key_123', authorization: undefined }, anywhere, 'r')).principal,
    ).not.toHaveProperty('eventIds');
  });

  it('enforces the host allowlist of the key', async () => {
    const site = (originHost: string | null) => ({ originHost, clientIp: '127.0.0.1' });
    expect(
      await statusOf(
        auth.authenticate({ apiKey: 'emk_site_bound_1', authorization: undefined }, site('photos.example.org'), 'r'),
      ),
    ).toBe('ok');
    expect(
      await statusOf(
        auth.authenticate({ apiKey: 'emk_site_bound_1', authorization: undefined }, site('evil.example'), 'r'),
      ),
    ).toBe(403);
    expect(
      await statusOf(auth.authenticate({ apiKey: 'emk_site_bound_1', authorization: undefined }, site(null), 'r')),
    ).toBe(403);
  });

  it("gives each visitor of a read-only (browser) key a budget of their own, within the key's shared ceiling", async () => {
    const subjects = async (clientIp: string | null) => {
      const { rateSubject, sharedRateSubject, principal } = await auth.authenticate(
        { apiKey: 'emk_browser_key1', authorization: undefined },
        { originHost: null, clientIp },
        'r',
      );
      return { rateSubject, sharedRateSubject, caller: principal.caller };
    };
    const visitor = await subjects('203.0.113.5');
    expect(visitor).toMatchObject({ rateSubject: 'key:4:client:203.0.113.5', sharedRateSubject: 'key:4' });
    expect(await subjects('::ffff:203.0.113.5')).toEqual(visitor);
    // The services see the visitor as an opaque caller (a shared queue's fair share), never the address.
    expect(visitor.caller).toMatch(/^[\w-]{22}$/);
    expect(visitor.caller).not.toContain('203.0.113');
    // One IPv6 subscriber holds a whole /64: its addresses are one visitor.
    const network = await subjects('2001:db8:1:2:aaaa::1');
    expect(network.rateSubject).toBe('key:4:client:2001:db8:1:2::/64');
    expect(await subjects('2001:db8:1:2:bbbb::9')).toEqual(network);
    const next = await subjects('2001:db8:1:3::1');
    expect(next.rateSubject).toBe('key:4:client:2001:db8:1:3::/64');
    expect(new Set([visitor.caller, network.caller, next.caller]).size).toBe(3);
    // Without a known address there is one budget, the key's, and no visitor.
    expect(await subjects(null)).toEqual({ rateSubject: 'key:4', sharedRateSubject: undefined, caller: undefined });
    // A server key is one caller: one budget.
    const server = await auth.authenticate(
      { apiKey: 'emk_good_key_123', authorization: undefined },
      { originHost: null, clientIp: '203.0.113.5' },
      'r',
    );
    expect(server.rateSubject).toBe('key:1');
    expect(server.sharedRateSubject).toBeUndefined();
    expect(server.principal.caller).toBeUndefined();
  });
});

describe('Authenticator.looksUp', () => {
  it('is true for a key the cache does not know and for a bearer token, false for a cached key or a malformed one', async () => {
    const source = { findByHash: async () => null, touchLastUsed: async () => undefined };
    const cached = new Authenticator(new ApiKeyLookup(source, 10), tokens, 'visitor-id-secret');
    const key = 'emk_invented_0123456789abcdef0123456789abcdef';
    expect(cached.looksUp({ apiKey: key, authorization: undefined })).toBe(true);
    await expect(cached.authenticate({ apiKey: key, authorization: undefined }, anywhere, 'r')).rejects.toMatchObject({
      status: 403,
    });
    // Its absence is cached now: asking again costs no lookup.
    expect(cached.looksUp({ apiKey: key, authorization: undefined })).toBe(false);
    expect(cached.looksUp({ apiKey: 'not a key', authorization: undefined })).toBe(false);
    expect(cached.looksUp({ apiKey: undefined, authorization: 'Bearer good.token.value' })).toBe(true);
  });
});
