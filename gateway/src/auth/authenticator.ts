import { AppError, CallerHost, isHostAllowed, looksLikeApiKey, Principal } from '@em/core';
import { ApiKeyLookup } from './api-key-cache';

export interface Credentials {
  apiKey: string | undefined;
  authorization: string | undefined;
}

/**
 * Establishes who calls: an `X-API-Key` (the key's organisation), or an OAuth bearer token.
 * Both at once is a 400, neither a 401; an unknown or inactive key, or a host not on the key's
 * allowlist, a 403.
 */
export class Authenticator {
  constructor(private readonly keys: ApiKeyLookup) {}

  async authenticate(credentials: Credentials, caller: CallerHost, requestId: string): Promise<Principal> {
    const apiKey = credentials.apiKey?.trim();
    const bearer = /^Bearer\s+(.+)$/i.exec(credentials.authorization?.trim() ?? '')?.[1];
    if (apiKey && credentials.authorization) throw new AppError('BAD_REQUEST', 'Send either an API key or a bearer token, not both');
    if (!apiKey && !credentials.authorization) throw new AppError('UNAUTHENTICATED', 'Credentials are missing: send the X-API-Key header');
    if (!apiKey) {
      if (!bearer) throw new AppError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <token>"');
      throw new AppError('UNAUTHENTICATED', 'The bearer token could not be verified');
    }

    if (!looksLikeApiKey(apiKey)) throw new AppError('FORBIDDEN', 'The API key is invalid');
    const key = await this.keys.find(apiKey);
    if (!key) throw new AppError('FORBIDDEN', 'The API key is invalid');
    if (!key.active) throw new AppError('FORBIDDEN', 'The API key is inactive');
    if (!isHostAllowed(key.allowedHosts, caller)) throw new AppError('FORBIDDEN', 'The calling host is not approved for this API key');
    this.keys.touch(key.id);
    return { orgId: key.orgId, kind: 'api_key', apiKeyId: key.id, scopes: [], requestId };
  }
}
