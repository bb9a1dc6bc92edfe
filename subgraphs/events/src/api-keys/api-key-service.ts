import { isIP } from 'node:net';
import { AppError, generateApiKey } from '@em/core';
import type { ApiKeyRecord, ApiKeysRepository, EventsRepository, OrganisationsRepository } from '@em/core/data';

export interface ApiKeyInput {
  name: string;
  allowedHosts?: string[];
  rateLimit?: number | null;
  /** Reads and searches only: for keys that are public by nature (a participant page's browser key). */
  readOnly?: boolean;
  /** The only events of the organisation the key may reach (a participant page's key: its event); absent = all. */
  eventIds?: number[] | null;
}

/** More events than a key's scope lists is a key of the whole organisation. */
const MAX_KEY_EVENTS = 100;

const HOSTNAME_RE = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** An allowlist entry: a hostname, a `*.domain` wildcard, or an IP address. */
export function normaliseAllowedHost(entry: string): string {
  const value = entry.trim().toLowerCase();
  if (isIP(value) || (value.length <= 253 && HOSTNAME_RE.test(value))) return value;
  throw new AppError('BAD_REQUEST', `"${entry}" is not a hostname, *.domain or IP address`);
}

/** The tables the key service works on. */
export interface ApiKeyRepositories {
  keys: ApiKeysRepository;
  organisations: Pick<OrganisationsRepository, 'findById'>;
  events: Pick<EventsRepository, 'findAccess'>;
}

/** Creating, listing, deactivating and deleting an organisation's API keys (GraphQL and the CLI). */
export class ApiKeyService {
  constructor(
    private readonly repos: ApiKeyRepositories,
    private readonly maxPerOrganisation: number,
    /** Told of every deactivation, activation and deletion (the gateways' caches, see key-invalidation). */
    private readonly onKeyChanged: (keyId: number) => Promise<void> = async () => undefined,
  ) {}

  async create(orgId: number, input: ApiKeyInput): Promise<{ apiKey: ApiKeyRecord; rawKey: string }> {
    const name = input.name?.trim();
    if (!name || name.length > 100) throw new AppError('BAD_REQUEST', 'A key needs a name of 1 to 100 characters');
    if (
      input.rateLimit !== undefined &&
      input.rateLimit !== null &&
      (!Number.isSafeInteger(input.rateLimit) || input.rateLimit < 1)
    ) {
      throw new AppError('BAD_REQUEST', 'rateLimit must be a positive integer');
    }
    const allowedHosts = [...new Set((input.allowedHosts ?? []).map(normaliseAllowedHost))];
    if (!(await this.repos.organisations.findById(orgId))) throw new AppError('NOT_FOUND', 'Organisation not found');
    const eventIds = await this.eventScope(orgId, input.eventIds);
    if ((await this.repos.keys.countForOrganisation(orgId)) >= this.maxPerOrganisation) {
      throw new AppError(
        'BAD_REQUEST',
        `An organisation may hold at most ${this.maxPerOrganisation} API keys; delete one first`,
      );
    }
    const generated = generateApiKey();
    const apiKey = await this.repos.keys.create({
      orgId,
      name,
      prefix: generated.displayPrefix,
      keyHash: generated.keyHash,
      allowedHosts,
      rateLimit: input.rateLimit ?? null,
      readOnly: input.readOnly ?? false,
      eventIds,
    });
    return { apiKey, rawKey: generated.rawKey };
  }

  list(orgId: number): Promise<ApiKeyRecord[]> {
    return this.repos.keys.listForOrganisation(orgId);
  }

  async setActive(orgId: number, keyId: number, active: boolean): Promise<ApiKeyRecord> {
    const key = await this.find(orgId, keyId);
    await this.repos.keys.setActive(key.id, active);
    await this.onKeyChanged(key.id);
    return { ...key, active };
  }

  async delete(orgId: number, keyId: number): Promise<void> {
    const key = await this.find(orgId, keyId);
    await this.repos.keys.delete(key.id);
    await this.onKeyChanged(keyId);
  }

  /** A key's list of events: each an event of the organisation (400 otherwise), sorted, without repeats. */
  private async eventScope(orgId: number, given: number[] | null | undefined): Promise<number[] | null> {
    if (given === undefined || given === null) return null;
    const ids = [...new Set(given)].sort((a, b) => a - b);
    if (ids.length === 0) {
      throw new AppError('BAD_REQUEST', 'eventIds lists no event: leave it out for a key of every event');
    }
    if (ids.length > MAX_KEY_EVENTS) {
      throw new AppError('BAD_REQUEST', `A key may be limited to at most ${MAX_KEY_EVENTS} events`);
    }
    for (const id of ids) {
      const event = Number.isSafeInteger(id) && id > 0 ? await this.repos.events.findAccess(id) : null;
      if (event?.organisation.id !== orgId) {
        throw new AppError('BAD_REQUEST', `Event ${id} is not an event of organisation ${orgId}`);
      }
    }
    return ids;
  }

  private async find(orgId: number, keyId: number): Promise<ApiKeyRecord> {
    const key = await this.repos.keys.findInOrganisation(orgId, keyId);
    if (!key) throw new AppError('NOT_FOUND', 'API key not found in this organisation');
    return key;
  }
}
