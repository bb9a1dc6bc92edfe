import type { ApiKeyRecord, ApiKeysRepository, NewApiKey } from '../api-keys.repository';

export class InMemoryApiKeysRepository implements ApiKeysRepository {
  readonly rows: Array<ApiKeyRecord & { keyHash: string }> = [];

  async create(key: NewApiKey) {
    const row = { id: this.rows.length + 1, active: true, createdAt: new Date(), lastUsedAt: null, ...key };
    this.rows.push(row);
    return this.record(row);
  }
  async countForOrganisation(orgId: number) {
    return this.rows.filter((k) => k.orgId === orgId).length;
  }
  async listForOrganisation(orgId: number) {
    return this.rows.filter((k) => k.orgId === orgId).map((k) => this.record(k));
  }
  async findInOrganisation(orgId: number, keyId: number) {
    const row = this.rows.find((k) => k.id === keyId && k.orgId === orgId);
    return row ? this.record(row) : null;
  }
  async findByHash(keyHash: string) {
    const row = this.rows.find((k) => k.keyHash === keyHash);
    return row ? this.record(row) : null;
  }
  async setActive(keyId: number, active: boolean) {
    const row = this.rows.find((k) => k.id === keyId);
    if (row) row.active = active;
  }
  async delete(keyId: number) {
    const i = this.rows.findIndex((k) => k.id === keyId);
    if (i >= 0) this.rows.splice(i, 1);
  }
  async touchLastUsed(keyId: number, at: Date) {
    const row = this.rows.find((k) => k.id === keyId);
    if (row) row.lastUsedAt = at;
  }
  private record({ keyHash: _hash, ...k }: ApiKeyRecord & { keyHash: string }): ApiKeyRecord {
    return { ...k, allowedHosts: [...k.allowedHosts] };
  }
}
