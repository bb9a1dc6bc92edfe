import { EntityManager } from '@mikro-orm/core';
import { FaceMatch } from '../db/entities';
import { sqlArray } from '../db/orm';
import { normaliseBib } from '../ids';
import { PageRequest } from '../pagination';

/**
 * The photo selections that more than one feature pages through (BIB search and BIB downloads,
 * face search and selfie downloads), so each rule lives in one place.
 */

/** Published photos on which `bib` was read (case-insensitive), in gallery order: one page of ids and the total. */
export async function photosWithBib(em: EntityManager, eventId: number, bib: string, request: PageRequest): Promise<{ total: number; ids: string[] }> {
  const wanted = normaliseBib(bib);
  if (!wanted) return { total: 0, ids: [] };
  const conn = em.getConnection();
  const from = `from photo_bibs b join photos p on p.id = b.photo_id
                where b.event_id = ? and b.bib = ? and p.published_at is not null`;
  const [{ total }] = await conn.execute(`select count(distinct p.id)::int as total ${from}`, [eventId, wanted]);
  if (total === 0) return { total: 0, ids: [] };
  const rows: Array<{ id: string }> = await conn.execute(
    `select distinct p.id, p.captured_at ${from} order by p.captured_at asc nulls last, p.id asc limit ? offset ?`,
    [eventId, wanted, request.pageSize, request.offset],
  );
  return { total, ids: rows.map((r) => r.id) };
}

/** The ids among `ids` that are published photos (of `eventId` when given). */
export async function publishedAmong(em: EntityManager, ids: readonly string[], eventId?: number): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows: Array<{ id: string }> = await em
    .getConnection()
    .execute('select id from photos where id = any(?::uuid[]) and (?::int is null or event_id = ?) and published_at is not null', [sqlArray(ids), eventId ?? null, eventId ?? null]);
  return new Set(rows.map((r) => r.id));
}

export interface StoredFaceSearch {
  requestId: string;
  orgId: number;
  eventId: number;
  confidenceThreshold: number | null;
  /** Best first, as stored; photos unpublished or deleted since are not filtered here. */
  matches: FaceMatch[];
  facesFound: number;
}

/** The face search stored under `requestId` in this event (a request_id names a search within one event only). */
export async function findFaceSearch(em: EntityManager, eventId: number, requestId: string): Promise<StoredFaceSearch | null> {
  const [row] = await em
    .getConnection()
    .execute('select request_id, organisation_id, event_id, confidence_threshold, matches, faces_found from face_searches where event_id = ? and request_id = ?', [eventId, requestId.toLowerCase()]);
  if (!row) return null;
  return {
    requestId: row.request_id,
    orgId: row.organisation_id,
    eventId: row.event_id,
    confidenceThreshold: row.confidence_threshold,
    matches: row.matches,
    facesFound: row.faces_found,
  };
}

/** The matches of a stored search whose photos are still published, in stored order. */
export async function visibleMatches(em: EntityManager, search: StoredFaceSearch): Promise<FaceMatch[]> {
  const visible = await publishedAmong(em, search.matches.map((m) => m.photoId), search.eventId);
  return search.matches.filter((m) => visible.has(m.photoId));
}
