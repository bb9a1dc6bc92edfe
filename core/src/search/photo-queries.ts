import { EntityManager } from '@mikro-orm/core';
import { FaceMatch } from '../db/entities';
import { sqlArray } from '../db/orm';
import { normaliseBib } from '../ids';
import { nearerEndScan, PageRequest } from '../pagination';

/**
 * The photo selections that more than one feature pages through (the gallery, BIB search and BIB
 * downloads, face search and selfie downloads), so each rule lives in one place.
 */

/** Which photos are visible: published ones (the partial indexes and the count trigger say the same). */
export const PUBLISHED = 'published_at is not null';
/**
 * The gallery order of the spec: capture time ascending, untimed photos last, id as the tie-break so
 * pages are stable (photos_gallery_idx). `fromEnd`: the same order read backwards.
 */
export function galleryOrder(table?: string, fromEnd = false): string {
  const column = (name: string) => (table ? `${table}.${name}` : name);
  return fromEnd ? `${column('captured_at')} desc nulls first, ${column('id')} desc` : `${column('captured_at')} asc nulls last, ${column('id')} asc`;
}

/** A gallery row as Postgres returns it (capture time as epoch milliseconds, no entity hydration). */
export interface GalleryRow {
  id: string;
  event_id: number;
  large_key: string | null;
  thumbnail_key: string | null;
  large_width: number | null;
  large_height: number | null;
  width: number | null;
  height: number | null;
  captured_at_ms: number | string | null;
  photographer_name: string | null;
  original_file_name: string;
  source: string;
  original_key: string;
  external_url: string | null;
}

/** The number of published photos of the event, kept on publish by the database (Migration20261123PublishedPhotoCount). */
export async function publishedPhotoCount(em: EntityManager, eventId: number): Promise<number> {
  const [row] = await em.getConnection().execute('select published from event_photo_counts where event_id = ?', [eventId]);
  return row?.published ?? 0;
}

/**
 * One gallery page and the total. The page is found by an index-only scan of photos_gallery_idx
 * (ids only; the rows of the page are read afterwards), from whichever end of the event is nearer,
 * so a page costs at most half an event's index entries and never a count. The total is read from
 * the counter; a publish between the two statements shifts the page by that photo, as it would
 * between two requests.
 */
export async function galleryPage(em: EntityManager, eventId: number, request: PageRequest): Promise<{ total: number; rows: GalleryRow[] }> {
  const total = await publishedPhotoCount(em, eventId);
  const scan = nearerEndScan(total, request);
  if (!scan) return { total, rows: [] };
  const rows: GalleryRow[] = await em.getConnection().execute(
    `select id, event_id, large_key, thumbnail_key, large_width, large_height, width, height, photographer_name, original_file_name, source, original_key, external_url,
            (extract(epoch from captured_at) * 1000)::float8 as captured_at_ms
       from photos join (select id from photos where event_id = ? and ${PUBLISHED} order by ${galleryOrder(undefined, scan.fromEnd)} limit ? offset ?) page using (id)
      order by ${galleryOrder()}`,
    [eventId, scan.take, scan.skip],
  );
  return { total, rows };
}

/** Published photos on which `bib` was read (case-insensitive), in gallery order: one page of ids and the total. */
export async function photosWithBib(em: EntityManager, eventId: number, bib: string, request: PageRequest): Promise<{ total: number; ids: string[] }> {
  const wanted = normaliseBib(bib);
  if (!wanted) return { total: 0, ids: [] };
  const conn = em.getConnection();
  const from = `from photo_bibs b join photos p on p.id = b.photo_id
                where b.event_id = ? and b.bib = ? and p.${PUBLISHED}`;
  const [{ total }] = await conn.execute(`select count(distinct p.id)::int as total ${from}`, [eventId, wanted]);
  if (total === 0) return { total: 0, ids: [] };
  const rows: Array<{ id: string }> = await conn.execute(
    `select distinct p.id, p.captured_at ${from} order by ${galleryOrder('p')} limit ? offset ?`,
    [eventId, wanted, request.pageSize, request.offset],
  );
  return { total, ids: rows.map((r) => r.id) };
}

/** The ids among `ids` that are published photos (of `eventId` when given). */
export async function publishedAmong(em: EntityManager, ids: readonly string[], eventId?: number): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows: Array<{ id: string }> = await em
    .getConnection()
    .execute(`select id from photos where id = any(?::uuid[]) and (?::int is null or event_id = ?) and ${PUBLISHED}`, [sqlArray(ids), eventId ?? null, eventId ?? null]);
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
