import { Principal } from '@em/core';
import { ApiKey, ApiKeyInput, ApiKeyService, guardOrganisationOperation, Orm } from '@em/core/data';

export interface ApiKeyView {
  id: number;
  name: string;
  prefix: string;
  active: boolean;
  allowedHosts: string[];
  rateLimit: number | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

const view = (k: ApiKey): ApiKeyView => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  active: k.active,
  allowedHosts: k.allowedHosts,
  rateLimit: k.rateLimit ?? null,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt ?? null,
});

/** API key management for organisation admins (bearer token with events:write). */
export class ApiKeysService {
  constructor(
    private readonly orm: Orm,
    private readonly keys: ApiKeyService,
  ) {}

  async list(principal: Principal, orgId: number): Promise<ApiKeyView[]> {
    guardOrganisationOperation(principal, 'apiKeys', orgId);
    return (await this.keys.list(this.orm.em, orgId)).map(view);
  }

  async create(principal: Principal, orgId: number, input: ApiKeyInput): Promise<{ key: string; apiKey: ApiKeyView }> {
    guardOrganisationOperation(principal, 'createApiKey', orgId);
    const { apiKey, rawKey } = await this.keys.create(this.orm.em, orgId, input);
    return { key: rawKey, apiKey: view(apiKey) };
  }

  async setActive(principal: Principal, orgId: number, keyId: number, active: boolean): Promise<ApiKeyView> {
    guardOrganisationOperation(principal, 'setApiKeyActive', orgId);
    return view(await this.keys.setActive(this.orm.em, orgId, keyId, active));
  }

  async delete(principal: Principal, orgId: number, keyId: number): Promise<boolean> {
    guardOrganisationOperation(principal, 'deleteApiKey', orgId);
    await this.keys.delete(this.orm.em, orgId, keyId);
    return true;
  }
}
