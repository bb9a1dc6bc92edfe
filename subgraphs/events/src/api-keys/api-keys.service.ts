import { Principal } from '@em/core';
import { ApiKeyRecord, guardOrganisationOperation } from '@em/core/data';
import { ApiKeyInput, ApiKeyService } from './api-key-service';

export type ApiKeyView = Omit<ApiKeyRecord, 'orgId'>;

const view = ({ orgId: _orgId, ...k }: ApiKeyRecord): ApiKeyView => k;

/** API key management for organisation admins (bearer token with events:write). */
export class ApiKeysService {
  constructor(private readonly keys: ApiKeyService) {}

  async list(principal: Principal, orgId: number): Promise<ApiKeyView[]> {
    guardOrganisationOperation(principal, 'apiKeys', orgId);
    return (await this.keys.list(orgId)).map(view);
  }

  async create(principal: Principal, orgId: number, input: ApiKeyInput): Promise<{ key: string; apiKey: ApiKeyView }> {
    guardOrganisationOperation(principal, 'createApiKey', orgId);
    const { apiKey, rawKey } = await this.keys.create(orgId, input);
    return { key: rawKey, apiKey: view(apiKey) };
  }

  async setActive(principal: Principal, orgId: number, keyId: number, active: boolean): Promise<ApiKeyView> {
    guardOrganisationOperation(principal, 'setApiKeyActive', orgId);
    return view(await this.keys.setActive(orgId, keyId, active));
  }

  async delete(principal: Principal, orgId: number, keyId: number): Promise<boolean> {
    guardOrganisationOperation(principal, 'deleteApiKey', orgId);
    await this.keys.delete(orgId, keyId);
    return true;
  }
}
