import { EntityManager } from '@mikro-orm/core';
import { ApiKey } from '../db/entities';
import { RepositorySource, repositoryHandle } from './repository-source';

export interface ApiKeyRecord {
  id: number;
  orgId: number;
  name: string;
  prefix: string;
  active: boolean;
  allowedHosts: string[];
  rateLimit: number | null;
  /** Reads and searches only (a participant page's browser key). */
  readOnly: boolean;
  /** The only events the key may reach; null = every event of the organisation. */
  eventIds: number[] | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface NewApiKey {
  orgId: number;
  name: string;
  prefix: string;
  keyHash: string;
  allowedHosts: string[];
  rateLimit: number | null;
  readOnly: boolean;
  eventIds: number[] | null;
}

/** Every query of `api_keys`. */
export interface ApiKeysRepository {
  create(key: NewApiKey): Promise<ApiKeyRecord>;
  countForOrganisation(orgId: number): Promise<number>;
  listForOrganisation(orgId: number): Promise<ApiKeyRecord[]>;
  findInOrganisation(orgId: number, keyId: number): Promise<ApiKeyRecord | null>;
  /** The gateway's lookup by the key's SHA-256. */
  findByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  setActive(keyId: number, active: boolean): Promise<void>;
  delete(keyId: number): Promise<void>;
  touchLastUsed(keyId: number, at: Date): Promise<void>;
}

const record = (k: ApiKey): ApiKeyRecord => ({
  id: k.id,
  orgId: k.organisation.id,
  name: k.name,
  prefix: k.prefix,
  active: k.active,
  allowedHosts: k.allowedHosts,
  rateLimit: k.rateLimit ?? null,
  readOnly: k.readOnly,
  eventIds: k.eventIds ? k.eventIds.map(Number) : null,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt ?? null,
});

export class SqlApiKeysRepository implements ApiKeysRepository {
  private readonly em: () => EntityManager;

  constructor(source: RepositorySource) {
    this.em = repositoryHandle(source).em;
  }

  async create({ orgId, ...fields }: NewApiKey) {
    const em = this.em();
    const key = em.create(ApiKey, { organisation: orgId, ...fields });
    await em.flush();
    return record(key);
  }

  countForOrganisation(orgId: number) {
    return this.em().count(ApiKey, { organisation: orgId });
  }

  async listForOrganisation(orgId: number) {
    return (await this.em().find(ApiKey, { organisation: orgId }, { orderBy: { id: 'asc' } })).map(record);
  }

  async findInOrganisation(orgId: number, keyId: number) {
    const found = await this.em().findOne(ApiKey, { id: keyId, organisation: orgId });
    return found && record(found);
  }

  async findByHash(keyHash: string) {
    const found = await this.em().findOne(ApiKey, { keyHash });
    return found && record(found);
  }

  async setActive(keyId: number, active: boolean) {
    await this.em().nativeUpdate(ApiKey, { id: keyId }, { active });
  }

  async delete(keyId: number) {
    await this.em().nativeDelete(ApiKey, { id: keyId });
  }

  async touchLastUsed(keyId: number, at: Date) {
    await this.em().nativeUpdate(ApiKey, { id: keyId }, { lastUsedAt: at });
  }
}
