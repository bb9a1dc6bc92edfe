import { EntityManager } from '@mikro-orm/core';
import { isIP } from 'node:net';
import { ApiKey, Organisation } from '../db/entities';
import { AppError } from '../errors';
import { generateApiKey } from './api-keys';

export interface ApiKeyInput {
  name: string;
  allowedHosts?: string[];
  rateLimit?: number | null;
  /** Reads and searches only: for keys that are public by nature (a participant page's browser key). */
  readOnly?: boolean;
}

const HOSTNAME_RE = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** An allowlist entry: a hostname, a `*.domain` wildcard, or an IP address. */
export function normaliseAllowedHost(entry: string): string {
  const value = entry.trim().toLowerCase();
  if (isIP(value) || (value.length <= 253 && HOSTNAME_RE.test(value))) return value;
  throw new AppError('BAD_REQUEST', `"${entry}" is not a hostname, *.domain or IP address`);
}

/** Creating, listing, deactivating and deleting an organisation's API keys (GraphQL and the CLI). */
export class ApiKeyService {
  constructor(
    private readonly maxPerOrganisation: number,
    /** Told of every deactivation, activation and deletion (the gateways' caches, see key-invalidation). */
    private readonly onKeyChanged: (keyId: number) => Promise<void> = async () => undefined,
  ) {}

  async create(em: EntityManager, orgId: number, input: ApiKeyInput): Promise<{ apiKey: ApiKey; rawKey: string }> {
    const name = input.name?.trim();
    if (!name || name.length > 100) throw new AppError('BAD_REQUEST', 'A key needs a name of 1 to 100 characters');
    if (input.rateLimit !== undefined && input.rateLimit !== null && (!Number.isSafeInteger(input.rateLimit) || input.rateLimit < 1)) {
      throw new AppError('BAD_REQUEST', 'rateLimit must be a positive integer');
    }
    const allowedHosts = [...new Set((input.allowedHosts ?? []).map(normaliseAllowedHost))];
    const organisation = await em.findOne(Organisation, { id: orgId });
    if (!organisation) throw new AppError('NOT_FOUND', 'Organisation not found');
    const count = await em.count(ApiKey, { organisation: orgId });
    if (count >= this.maxPerOrganisation) {
      throw new AppError('BAD_REQUEST', `An organisation may hold at most ${this.maxPerOrganisation} API keys; delete one first`);
    }
    const generated = generateApiKey();
    const apiKey = em.create(ApiKey, {
      organisation,
      name,
      prefix: generated.displayPrefix,
      keyHash: generated.keyHash,
      allowedHosts,
      rateLimit: input.rateLimit ?? null,
      readOnly: input.readOnly ?? false,
    });
    await em.flush();
    return { apiKey, rawKey: generated.rawKey };
  }

  list(em: EntityManager, orgId: number): Promise<ApiKey[]> {
    return em.find(ApiKey, { organisation: orgId }, { orderBy: { id: 'asc' } });
  }

  async setActive(em: EntityManager, orgId: number, keyId: number, active: boolean): Promise<ApiKey> {
    const key = await this.find(em, orgId, keyId);
    key.active = active;
    await em.flush();
    await this.onKeyChanged(key.id);
    return key;
  }

  async delete(em: EntityManager, orgId: number, keyId: number): Promise<void> {
    const key = await this.find(em, orgId, keyId);
    await em.removeAndFlush(key);
    await this.onKeyChanged(keyId);
  }

  private async find(em: EntityManager, orgId: number, keyId: number): Promise<ApiKey> {
    const key = await em.findOne(ApiKey, { id: keyId, organisation: orgId });
    if (!key) throw new AppError('NOT_FOUND', 'API key not found in this organisation');
    return key;
  }
}
