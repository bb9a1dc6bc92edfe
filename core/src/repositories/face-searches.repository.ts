import type { EntityManager } from '@mikro-orm/core';
import { FaceMatch } from '../db/entities';
import { sqlArray } from '../db/orm';
import { RepositorySource, repositoryHandle } from './repository-source';

export interface StoredFaceSearch {
  requestId: string;
  orgId: number;
  eventId: number;
  confidenceThreshold: number | null;
  /** Best first, as stored; photos unpublished or deleted since are not filtered here. */
  matches: FaceMatch[];
  facesFound: number;
  /** The selfie's descriptor (float32 little-endian); null when no face was found on it. */
  embedding: Buffer | null;
}

export interface NewFaceSearch extends StoredFaceSearch {
  apiKeyId: number | null;
}

export interface FaceSearchUsageFilter {
  eventId?: number | null;
  from?: Date | null;
  to?: Date | null;
}

/** Stored selfie searches: every query of `face_searches`. A request_id names a search within one event. */
export interface FaceSearchesRepository {
  find(eventId: number, requestId: string): Promise<StoredFaceSearch | null>;
  /** Stores a fresh (billable) search; false when one with this request_id was stored first. */
  insertIfAbsent(search: NewFaceSearch): Promise<boolean>;
  /** Counts a retry answered from the stored search (not billable). */
  recordCacheHit(eventId: number, requestId: string): Promise<void>;
  /** Billable searches and cached retries of an organisation. */
  usage(orgId: number, filter: FaceSearchUsageFilter): Promise<{ billable: number; retries: number }>;
  /** Whether a search with this request_id is stored in the event for one of the organisations. */
  existsForOrganisations(eventId: number, requestId: string, orgIds: readonly number[]): Promise<boolean>;
}

export class SqlFaceSearchesRepository implements FaceSearchesRepository {
  private readonly em: () => EntityManager;

  constructor(source: RepositorySource) {
    this.em = repositoryHandle(source).em;
  }

  private execute<T>(sql: string, params: unknown[]): Promise<T[]> {
    return this.em().getConnection().execute(sql, params);
  }

  async find(eventId: number, requestId: string): Promise<StoredFaceSearch | null> {
    const [row] = await this.execute<Record<string, never>>(
      'select request_id, organisation_id, event_id, confidence_threshold, matches, faces_found, embedding from face_searches where event_id = ? and request_id = ?',
      [eventId, requestId.toLowerCase()],
    );
    if (!row) return null;
    return {
      requestId: row.request_id,
      orgId: row.organisation_id,
      eventId: row.event_id,
      confidenceThreshold: row.confidence_threshold,
      matches: row.matches,
      facesFound: row.faces_found,
      embedding: row.embedding ?? null,
    };
  }

  async insertIfAbsent(s: NewFaceSearch): Promise<boolean> {
    const inserted = await this.execute(
      `insert into face_searches (request_id, organisation_id, event_id, api_key_id, embedding, confidence_threshold, matches, faces_found, billable)
       values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, true) on conflict (event_id, request_id) do nothing returning request_id`,
      [
        s.requestId,
        s.orgId,
        s.eventId,
        s.apiKeyId,
        s.embedding,
        s.confidenceThreshold,
        JSON.stringify(s.matches),
        s.facesFound,
      ],
    );
    return inserted.length > 0;
  }

  async recordCacheHit(eventId: number, requestId: string): Promise<void> {
    await this.execute(
      'update face_searches set cache_hits = cache_hits + 1, updated_at = now() where event_id = ? and request_id = ?',
      [eventId, requestId],
    );
  }

  async usage(
    orgId: number,
    { eventId, from, to }: FaceSearchUsageFilter,
  ): Promise<{ billable: number; retries: number }> {
    const [row] = await this.execute<{ billable: number; retries: number }>(
      `select count(*) filter (where billable)::int as billable, coalesce(sum(cache_hits), 0)::int as retries
         from face_searches
        where organisation_id = ? and (?::int is null or event_id = ?) and (?::timestamptz is null or created_at >= ?) and (?::timestamptz is null or created_at < ?)`,
      [orgId, eventId ?? null, eventId ?? null, from ?? null, from ?? null, to ?? null, to ?? null],
    );
    return row;
  }

  async existsForOrganisations(eventId: number, requestId: string, orgIds: readonly number[]): Promise<boolean> {
    if (orgIds.length === 0) return false;
    const rows = await this.execute(
      'select 1 from face_searches where event_id = ? and request_id = ? and organisation_id = any(?::int[]) limit 1',
      [eventId, requestId, sqlArray(orgIds)],
    );
    return rows.length > 0;
  }
}
