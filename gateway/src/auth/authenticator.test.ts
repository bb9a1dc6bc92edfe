import { AppError } from '@em/core';
import { ApiKeyLookup, KeyRecord } from './api-key-cache';
import { Authenticator } from './authenticator';

function lookup(records: Record<string, KeyRecord>): ApiKeyLookup {
  return { find: async (raw: string) => records[raw] ?? null, touch: () => undefined } as unknown as ApiKeyLookup;
}

const keys = {
  emk_good_key_123: { id: 1, orgId: 7, active: true, allowedHosts: [] },
  emk_inactive_key: { id: 2, orgId: 7, active: false, allowedHosts: [] },
  emk_site_bound_1: { id: 3, orgId: 7, active: true, allowedHosts: ['photos.example.org'] },
};
const auth = new Authenticator(lookup(keys));
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
    await expect(auth.authenticate({ apiKey: 'emk_good_key_123', authorization: undefined }, anywhere, 'r1')).resolves.toEqual({
      orgId: 7,
      kind: 'api_key',
      apiKeyId: 1,
      scopes: [],
      requestId: 'r1',
    });
  });

  it('applies the credential rules of the spec', async () => {
    expect(await statusOf(auth.authenticate({ apiKey: undefined, authorization: undefined }, anywhere, 'r'))).toBe(401);
    expect(await statusOf(auth.authenticate({ apiKey: '  ', authorization: undefined }, anywhere, 'r'))).toBe(401);
    expect(await statusOf(auth.authenticate({ apiKey: 'emk_good_key_123', authorization: 'Bearer x' }, anywhere, 'r'))).toBe(400);
    expect(await statusOf(auth.authenticate({ apiKey: undefined, authorization: 'Bearer x.y.z' }, anywhere, 'r'))).toBe(401);
    expect(await statusOf(auth.authenticate({ apiKey: 'emk_unknown_key', authorization: undefined }, anywhere, 'r'))).toBe(403);
    expect(await statusOf(auth.authenticate({ apiKey: 'short', authorization: undefined }, anywhere, 'r'))).toBe(403);
    expect(await statusOf(auth.authenticate({ apiKey: 'emk_inactive_key', authorization: undefined }, anywhere, 'r'))).toBe(403);
  });

  it('enforces the host allowlist of the key', async () => {
    const site = (originHost: string | null) => ({ originHost, clientIp: '127.0.0.1' });
    expect(await statusOf(auth.authenticate({ apiKey: 'emk_site_bound_1', authorization: undefined }, site('photos.example.org'), 'r'))).toBe('ok');
    expect(await statusOf(auth.authenticate({ apiKey: 'emk_site_bound_1', authorization: undefined }, site('evil.example'), 'r'))).toBe(403);
    expect(await statusOf(auth.authenticate({ apiKey: 'emk_site_bound_1', authorization: undefined }, site(null), 'r'))).toBe(403);
  });
});
