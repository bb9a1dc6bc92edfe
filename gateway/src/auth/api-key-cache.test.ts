import { hashApiKey } from '@em/core';
import { ApiKeyRecord } from '@em/core/data';
import { ApiKeyLookup, KeyRecord } from './api-key-cache';

const record = (id: number): KeyRecord => ({
  id,
  orgId: 1,
  active: true,
  allowedHosts: [],
  rateLimit: null,
  readOnly: false,
  eventIds: null,
});

function lookupOver(records: Record<string, KeyRecord>) {
  const byHash = new Map(Object.entries(records).map(([raw, r]) => [hashApiKey(raw), r]));
  const calls: string[] = [];
  const findByHash = async (hash: string) => (calls.push(hash), (byHash.get(hash) as ApiKeyRecord | undefined) ?? null);
  const lookup = new ApiKeyLookup({ findByHash, touchLastUsed: async () => undefined }, 60, {
    known: 100,
    unknown: 10,
  });
  return { lookup, calls, byHash };
}

describe('ApiKeyLookup', () => {
  it('keeps known keys cached while a flood of unknown keys goes by', async () => {
    const { lookup, calls } = lookupOver({ emk_real_key_1: record(1) });
    await lookup.find('emk_real_key_1');
    for (let i = 0; i < 10_000; i++) await lookup.find(`emk_invented_${i}`);
    calls.length = 0;
    expect(await lookup.find('emk_real_key_1')).toEqual(record(1));
    expect(calls).toEqual([]);
  });

  it('caches unknown keys too, in a bounded cache', async () => {
    const { lookup, calls } = lookupOver({});
    await lookup.find('emk_invented_1');
    await lookup.find('emk_invented_1');
    expect(calls).toHaveLength(1);
  });

  it('forgets an invalidated key at once', async () => {
    const { lookup, calls, byHash } = lookupOver({ emk_real_key_1: record(1), emk_real_key_2: record(2) });
    await lookup.find('emk_real_key_1');
    await lookup.find('emk_real_key_2');
    byHash.set(hashApiKey('emk_real_key_1'), { ...record(1), active: false });
    lookup.invalidate(1);
    calls.length = 0;
    expect((await lookup.find('emk_real_key_1'))?.active).toBe(false);
    expect((await lookup.find('emk_real_key_2'))?.active).toBe(true);
    expect(calls).toHaveLength(1);
  });
});
