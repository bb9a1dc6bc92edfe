import { hashApiKey, LruMap } from '@em/core';
import { ApiKeysRepository } from '@em/core/data';

export interface KeyRecord {
  id: number;
  orgId: number;
  active: boolean;
  allowedHosts: string[];
  rateLimit: number | null;
  readOnly: boolean;
  /** The only events the key may reach; null = every event of its organisation. */
  eventIds: number[] | null;
}

/** Where key records come from when they are not cached (the api_keys repository). */
export type KeySource = Pick<ApiKeysRepository, 'findByHash' | 'touchLastUsed'>;

interface Cached<T> {
  value: T;
  expiresAt: number;
}

/**
 * API keys by hash, cached for a few seconds so the hot path does not hit Postgres on every
 * call. Known keys and unknown ones are cached apart, each in a bounded LRU: a flood of invented
 * keys only churns the small negative cache and never evicts a real key. A key that changes is
 * dropped at once by invalidate() (the gateway listens for announcements on Redis). Records
 * last-used time at most once a minute per key.
 */
export class ApiKeyLookup {
  private readonly known: LruMap<string, Cached<KeyRecord>>;
  private readonly unknown: LruMap<string, Cached<null>>;
  private readonly lastTouched = new LruMap<number, number>(10_000);

  constructor(
    private readonly source: KeySource,
    private readonly cacheSeconds: number,
    capacity = { known: 10_000, unknown: 1_000 },
  ) {
    this.known = new LruMap(capacity.known);
    this.unknown = new LruMap(capacity.unknown);
  }

  async find(rawKey: string): Promise<KeyRecord | null> {
    const hash = hashApiKey(rawKey);
    const now = Date.now();
    const cached = this.known.get(hash) ?? this.unknown.get(hash);
    if (cached && cached.expiresAt > now) return cached.value;

    const found = await this.source.findByHash(hash);
    const record: KeyRecord | null = found && {
      id: found.id,
      orgId: found.orgId,
      active: found.active,
      allowedHosts: found.allowedHosts,
      rateLimit: found.rateLimit,
      readOnly: found.readOnly,
      eventIds: found.eventIds ?? null,
    };
    if (this.cacheSeconds > 0) {
      const expiresAt = now + this.cacheSeconds * 1000;
      if (record) this.known.set(hash, { value: record, expiresAt });
      else this.unknown.set(hash, { value: null, expiresAt });
    }
    return record;
  }

  /** Whether find() answers this key from the cache, without a lookup in Postgres. */
  isCached(rawKey: string): boolean {
    const hash = hashApiKey(rawKey);
    const cached = this.known.get(hash) ?? this.unknown.get(hash);
    return cached !== undefined && cached.expiresAt > Date.now();
  }

  /** Forgets a key that was deactivated, reactivated or deleted elsewhere. */
  invalidate(keyId: number): void {
    this.known.deleteWhere((entry) => entry.value.id === keyId);
  }

  /** Forgets every cached key (key change announcements may have been missed). */
  invalidateAll(): void {
    this.known.deleteWhere(() => true);
  }

  touch(keyId: number): void {
    const now = Date.now();
    if ((this.lastTouched.get(keyId) ?? 0) > now - 60_000) return;
    this.lastTouched.set(keyId, now);
    void this.source.touchLastUsed(keyId, new Date(now)).catch(() => undefined);
  }
}
