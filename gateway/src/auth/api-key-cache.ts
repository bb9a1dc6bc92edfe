import { ApiKey, hashApiKey, Orm } from '@em/core';

export interface KeyRecord {
  id: number;
  orgId: number;
  active: boolean;
  allowedHosts: string[];
  rateLimit: number | null;
}

/**
 * API keys by hash, cached for a few seconds so the hot path does not hit Postgres on every
 * call; a deactivated key stops working within that time. Records last-used time at most once a
 * minute per key.
 */
export class ApiKeyLookup {
  private readonly cache = new Map<string, { record: KeyRecord | null; expiresAt: number }>();
  private readonly lastTouched = new Map<number, number>();

  constructor(
    private readonly orm: Orm,
    private readonly cacheSeconds: number,
  ) {}

  async find(rawKey: string): Promise<KeyRecord | null> {
    const hash = hashApiKey(rawKey);
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now) return cached.record;

    const em = this.orm.em.fork();
    const key = await em.findOne(ApiKey, { keyHash: hash });
    const record = key ? { id: key.id, orgId: key.organisation.id, active: key.active, allowedHosts: key.allowedHosts, rateLimit: key.rateLimit ?? null } : null;
    if (this.cacheSeconds > 0) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(hash, { record, expiresAt: now + this.cacheSeconds * 1000 });
    }
    return record;
  }

  touch(keyId: number): void {
    const now = Date.now();
    if ((this.lastTouched.get(keyId) ?? 0) > now - 60_000) return;
    this.lastTouched.set(keyId, now);
    void this.orm.em
      .fork()
      .nativeUpdate(ApiKey, { id: keyId }, { lastUsedAt: new Date(now) })
      .catch(() => undefined);
  }
}
