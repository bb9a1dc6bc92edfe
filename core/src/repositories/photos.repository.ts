import { EntityManager, QueryOrder } from '@mikro-orm/core';
import { Face, Photo, PhotoStatus } from '../db/entities';
import { sqlArray } from '../db/orm';
import { runPrepared } from '../db/prepared';
import { GALLERY_PAGE } from './gallery-page.statement';
import { normaliseBib } from '../ids';
import { PageRequest } from '../pagination';
import { FaceRow } from './face-rows';
import {
  GalleryRow,
  NewPhoto,
  EventPhotoCounts,
  FailedPhotoRow,
  PhotoStatusTally,
  ProcessedPhoto,
  ReviewBibRow,
  ReviewFaceRow,
  ReviewQueueRow,
  ReviewReason,
} from './photos.types';
import { confirmedStatus, SIGHTING_SECONDS, type BibJudgement, type StoredBibReadRow } from '../bibs/bib-read-rule';
import { RepositoryHandle, RepositorySource, repositoryHandle } from './repository-source';

export * from './photos.types';

/**
 * A face index's load ($1 event, $2 after id, $3 limit, $4 ids already held): in the order of the
 * column (`order by id` would sort by the text alias: a sort spilled to disk, and batches that
 * skipped faces past the first 20,000), by the (event_id, id) index, the held ids left out.
 */
const PHOTO_FACES_AFTER = {
  name: 'faces_after',
  text: `select f.id::text as id, f.photo_id::text as ref, f.embedding, f.descriptor_version as version, f.quality, null as "group"
           from faces f where f.event_id = $1::int and f.id > $2::bigint and f.id not in (select unnest($4::bigint[]))
          order by f.id limit $3::int`,
};

/** Which bib reads participants find a photo by (SEARCHABLE_BIB_STATUSES of core/src/bibs/bib-read-rule.ts). */
export const SEARCHABLE_READ = "status in ('accepted', 'completed')";

/** Reads that confirm an unsure read of the same number near them, and the unsure reads settled (`settleUnsure`). */
const COUNTED_OR_UNCONFIRMED = "'accepted', 'completed', 'unconfirmed'";
/**
 * The advisory lock class every write of an event's bib reads takes first (with the event id): a photo saved
 * alongside another waits for it, so the settling of unsure reads sees both photos' reads.
 */
const BIB_READS_LOCK = 0x62696273;

/** Which photos are visible: published ones (the partial indexes and the count trigger say the same). */
export const PUBLISHED = 'published_at is not null';
/**
 * The gallery order of the spec: capture time ascending, untimed photos last, id as the tie-break so
 * pages are stable (photos_gallery_idx). `fromEnd`: the same order read backwards.
 */
export function galleryOrder(table?: string, fromEnd = false): string {
  const column = (name: string) => (table ? `${table}.${name}` : name);
  return fromEnd
    ? `${column('captured_at')} desc nulls first, ${column('id')} desc`
    : `${column('captured_at')} asc nulls last, ${column('id')} asc`;
}

/** The photos of events, their BIBs and faces: every query of `photos`, `photo_bibs`, `faces` and `event_photo_counts`. */
export interface PhotosRepository {
  /** The number of published photos of the event. */
  publishedCount(eventId: number): Promise<number>;
  /** One gallery page of published photos in gallery order, and the total. */
  galleryPage(eventId: number, request: PageRequest): Promise<{ total: number; rows: GalleryRow[] }>;
  /** Published photos on which `bib` was read (normalised), in gallery order: one page of ids and the total. */
  publishedWithBib(eventId: number, bib: string, request: PageRequest): Promise<{ total: number; ids: string[] }>;
  /** The ids among `ids` that are published photos (of `eventId` when given). */
  publishedAmong(ids: readonly string[], eventId?: number): Promise<Set<string>>;
  /** A published photo of the event. */
  findPublished(eventId: number, id: string): Promise<Photo | null>;
  /** Published photos of the event among `ids`. */
  findPublishedInEvent(eventId: number, ids: readonly string[]): Promise<Photo[]>;
  /** Published photos among `ids`, of any event, with their event (and its organisation id). */
  findPublishedWithEvent(ids: readonly string[]): Promise<Photo[]>;
  /** Counts of timed, published photos per UTC day and hour, in order. */
  countsByHour(eventId: number): Promise<Array<{ day: string; hour: number; count: number }>>;
  /** Published photos captured in [from, to), by capture time then id: one page and the total. */
  publishedCapturedBetween(
    eventId: number,
    from: Date,
    to: Date,
    request: PageRequest,
  ): Promise<{ total: number; photos: Photo[] }>;
  findByContentHash(eventId: number, contentHash: string): Promise<Photo | null>;
  /** Inserts an imported photo; throws when the row cannot be written (a concurrent import of the same content). */
  insert(photo: NewPhoto): Promise<void>;
  /** Marks the event's photos in one of `statuses` (only those of `only`, when given) queued, clearing their errors; returns their ids. */
  markQueued(eventId: number, statuses: PhotoStatus[], only?: string[]): Promise<string[]>;
  /** Publishes every processed, unpublished photo of the event; returns how many. */
  publishProcessed(eventId: number, at: Date): Promise<number>;
  tallyByStatus(eventId: number): Promise<PhotoStatusTally[]>;
  /** Photo counts of many events in one query; an event without photos has no row. */
  countsOfEvents(eventIds: readonly number[]): Promise<EventPhotoCounts[]>;
  /** Failed photos grouped by their (first) reason, most frequent first. */
  failureReasons(eventId: number, limit: number): Promise<Array<{ reason: string; count: number }>>;
  /** The event's failed photos with their (first) reason, latest imported first. */
  failedPhotos(eventId: number, limit: number): Promise<FailedPhotoRow[]>;
  /** A photo to process, with its event. */
  findWithEvent(photoId: string): Promise<Photo | null>;
  markProcessing(photoId: string): Promise<void>;
  /**
   * Replaces the photo's BIBs and faces and records its previews, in one transaction with the settling of the
   * unsure reads it touches (its own, and the other photos' of a number it holds or held: `settleUnsure`).
   * Returns the ids of the other photos whose reads changed judgement.
   */
  saveProcessed(photoId: string, eventId: number, result: ProcessedPhoto): Promise<string[]>;
  /** Marks an unprocessed photo failed with the reason. */
  markFailed(photoId: string, reason: string): Promise<void>;
  /** The largest face on the event's published photos, with its photo's original (the demo's selfie). */
  largestPublishedFace(
    eventId: number,
  ): Promise<{ originalKey: string; box: { x: number; y: number; width: number; height: number } } | null>;
  /** Faces of the event's photos with an id above `afterId`, by id (ref: the photo id). */
  facesAfter(eventId: number, afterId: string, limit: number, skipIds?: readonly string[]): Promise<FaceRow[]>;
  /** The large preview of the event's photo imported under this file name (the demo's cover). */
  largeKeyOfFile(eventId: number, originalFileName: string): Promise<string | null>;
  /** Ids of the event's photos with faces described by a descriptor version older than `version`. */
  withFacesOlderThan(eventId: number, version: number): Promise<string[]>;
  /** Ids of the events (not being deleted) with photo faces of a descriptor version older than `version`. */
  eventsWithFacesOlderThan(version: number): Promise<number[]>;
  /** Sends a finished photo back to be processed again (its faces re-described); it stays published meanwhile. */
  markForReprocessing(id: string): Promise<void>;
  /** Every stored bib read of the event's photos. */
  bibReadsOf(eventId: number): Promise<StoredBibReadRow[]>;
  /**
   * Writes new judgements of stored reads (after a start list import) and settles the event's unsure reads, in one
   * transaction (`settleUnsure`: a read the new list changes no longer confirms another, or now does).
   */
  setBibJudgements(eventId: number, changes: ReadonlyArray<{ id: string } & BibJudgement>): Promise<void>;
  /** A photo of the event in any state (hidden, unpublished, failed): the organiser's view. */
  findInEvent(eventId: number, id: string): Promise<Photo | null>;
  /** Every bib row of the photos, read or the organiser's, by photo id. */
  bibRowsOf(photoIds: readonly string[]): Promise<ReviewBibRow[]>;
  /** Every face of the photos (box and quality, no descriptor), by photo id. */
  faceRowsOf(photoIds: readonly string[]): Promise<ReviewFaceRow[]>;
  /**
   * The organiser's word on `bib` for the photo: its rows of that number become the organiser's
   * (`accepted`: searchable, `rejected`: not), kept through re-reading and re-judging; `accepted`
   * adds a row when there is none. Returns how many rows now say it (0: nothing to reject).
   */
  setOrganiserBib(eventId: number, photoId: string, bib: string, status: 'accepted' | 'rejected'): Promise<number>;
  /** Hides the photo (unpublished, never published again while hidden); false when it is already hidden or absent. */
  hide(eventId: number, id: string, at: Date): Promise<boolean>;
  /** Unhides the photo, published at `publishAt` when given (the event is live and the photo processed); false when it was not hidden. */
  unhide(eventId: number, id: string, publishAt: Date | null): Promise<boolean>;
  /** Deletes the photo's row (its bibs and faces go with it); false when it was gone. */
  remove(eventId: number, id: string): Promise<boolean>;
  /** Processed photos needing the organiser's eye (ReviewReason), by id after `afterId`, at most `limit`. */
  reviewQueue(eventId: number, afterId: string | null, limit: number): Promise<ReviewQueueRow[]>;
}

export class SqlPhotosRepository implements PhotosRepository {
  private readonly handle: RepositoryHandle;

  constructor(source: RepositorySource) {
    this.handle = repositoryHandle(source);
  }

  private get em() {
    return this.handle.em();
  }

  private execute<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.em.getConnection().execute(sql, params);
  }

  async publishedCount(eventId: number): Promise<number> {
    // Kept on publish by the database (Migration20261123PublishedPhotoCount).
    const [row] = await this.execute<{ published: number }>(
      'select published from event_photo_counts where event_id = ?',
      [eventId],
    );
    return row?.published ?? 0;
  }

  /**
   * One statement (GALLERY_PAGE): the counter, then the page from the nearer end of photos_gallery_idx,
   * never a count. One statement reads one snapshot, so the total and the page always agree.
   */
  async galleryPage(eventId: number, request: PageRequest): Promise<{ total: number; rows: GalleryRow[] }> {
    const result = await runPrepared<GalleryRow & { total: number }>(this.handle.statements(), GALLERY_PAGE, [
      eventId,
      request.offset,
      request.pageSize,
    ]);
    const total = result[0]?.total ?? 0;
    const rows: GalleryRow[] = [];
    for (const { total: _total, ...row } of result) if (row.id !== null) rows.push(row);
    return { total, rows };
  }

  async publishedWithBib(
    eventId: number,
    bib: string,
    request: PageRequest,
  ): Promise<{ total: number; ids: string[] }> {
    const wanted = normaliseBib(bib);
    if (!wanted) return { total: 0, ids: [] };
    const from = `from photo_bibs b join photos p on p.id = b.photo_id
                  where b.event_id = ? and b.bib = ? and b.${SEARCHABLE_READ} and p.${PUBLISHED}`;
    const [{ total }] = await this.execute<{ total: number }>(`select count(distinct p.id)::int as total ${from}`, [
      eventId,
      wanted,
    ]);
    if (total === 0) return { total: 0, ids: [] };
    const rows = await this.execute<{ id: string }>(
      `select distinct p.id, p.captured_at ${from} order by ${galleryOrder('p')} limit ? offset ?`,
      [eventId, wanted, request.pageSize, request.offset],
    );
    return { total, ids: rows.map((r) => r.id) };
  }

  async publishedAmong(ids: readonly string[], eventId?: number): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.execute<{ id: string }>(
      `select id from photos where id = any(?::uuid[]) and (?::int is null or event_id = ?) and ${PUBLISHED}`,
      [sqlArray(ids), eventId ?? null, eventId ?? null],
    );
    return new Set(rows.map((r) => r.id));
  }

  findPublished(eventId: number, id: string): Promise<Photo | null> {
    return this.em.findOne(Photo, { id, event: eventId, publishedAt: { $ne: null } });
  }

  async findPublishedInEvent(eventId: number, ids: readonly string[]): Promise<Photo[]> {
    if (ids.length === 0) return [];
    return this.em.find(Photo, { id: { $in: [...ids] }, event: eventId, publishedAt: { $ne: null } });
  }

  async findPublishedWithEvent(ids: readonly string[]): Promise<Photo[]> {
    if (ids.length === 0) return [];
    return this.em.find(Photo, { id: { $in: [...ids] }, publishedAt: { $ne: null } }, { populate: ['event'] });
  }

  countsByHour(eventId: number): Promise<Array<{ day: string; hour: number; count: number }>> {
    return this.execute(
      `select to_char(captured_at at time zone 'UTC', 'YYYY-MM-DD') as day,
              extract(hour from captured_at at time zone 'UTC')::int as hour,
              count(*)::int as count
         from photos
        where event_id = ? and ${PUBLISHED} and captured_at is not null
        group by 1, 2
        order by 1, 2`,
      [eventId],
    );
  }

  async publishedCapturedBetween(
    eventId: number,
    from: Date,
    to: Date,
    request: PageRequest,
  ): Promise<{ total: number; photos: Photo[] }> {
    const [photos, total] = await this.em.findAndCount(
      Photo,
      { event: eventId, publishedAt: { $ne: null }, capturedAt: { $gte: from, $lt: to } },
      {
        orderBy: [{ capturedAt: QueryOrder.ASC }, { id: QueryOrder.ASC }],
        limit: request.pageSize,
        offset: request.offset,
      },
    );
    return { total, photos };
  }

  findByContentHash(eventId: number, contentHash: string): Promise<Photo | null> {
    return this.em.findOne(Photo, { event: eventId, contentHash });
  }

  async insert(photo: NewPhoto): Promise<void> {
    const { eventId, ...fields } = photo;
    const em = this.em;
    // Names from outside (a file's, a camera's) may hold a NUL, which Postgres text cannot: it is dropped.
    const photographerName = fields.photographerName?.replaceAll('\u0000', '') ?? null;
    const originalFileName = fields.originalFileName.replaceAll('\u0000', '');
    em.create(Photo, { ...fields, photographerName, originalFileName, event: eventId, status: 'imported' });
    await em.flush();
  }

  async markQueued(eventId: number, statuses: PhotoStatus[], only?: string[]): Promise<string[]> {
    const em = this.em;
    const ids = (
      await em.find(
        Photo,
        { event: eventId, status: { $in: statuses }, ...(only ? { id: { $in: only } } : {}) },
        { fields: ['id'] },
      )
    ).map((p) => p.id);
    if (ids.length)
      await em.nativeUpdate(
        Photo,
        { id: { $in: ids }, status: { $in: statuses } },
        { status: 'queued', stepErrors: null },
      );
    return ids;
  }

  publishProcessed(eventId: number, at: Date): Promise<number> {
    return this.em.nativeUpdate(
      Photo,
      { event: eventId, status: 'processed', publishedAt: null, hiddenAt: null },
      { publishedAt: at },
    );
  }

  async tallyByStatus(eventId: number): Promise<PhotoStatusTally[]> {
    const rows = await this.execute<{
      status: PhotoStatus;
      count: number;
      last_created: Date | null;
      last_processed: Date | null;
      live: number;
    }>(
      `select status, count(*)::int as count, max(created_at) as last_created, max(processed_at) as last_processed,
              count(published_at)::int as live
         from photos where event_id = ? group by status`,
      [eventId],
    );
    return rows.map((r) => ({
      status: r.status,
      count: r.count,
      lastCreated: r.last_created,
      lastProcessed: r.last_processed,
      live: r.live,
    }));
  }

  async countsOfEvents(eventIds: readonly number[]): Promise<EventPhotoCounts[]> {
    if (!eventIds.length) return [];
    const rows = await this.execute<{
      event_id: number;
      total: number;
      processed: number;
      failed: number;
      live: number;
    }>(
      `select event_id, count(*)::int as total, count(*) filter (where status = 'processed')::int as processed,
              count(*) filter (where status = 'failed')::int as failed, count(published_at)::int as live
         from photos where event_id = any(?::int[]) group by event_id`,
      [sqlArray(eventIds)],
    );
    return rows.map((r) => ({
      eventId: r.event_id,
      total: r.total,
      processed: r.processed,
      failed: r.failed,
      live: r.live,
    }));
  }

  failedPhotos(eventId: number, limit: number): Promise<FailedPhotoRow[]> {
    return this.execute<FailedPhotoRow>(
      `select id::text as id, original_file_name as "fileName",
              coalesce((select value from jsonb_each_text(step_errors) limit 1), 'unknown') as reason
         from photos where event_id = ? and status = 'failed' order by created_at desc, id limit ?`,
      [eventId, limit],
    );
  }

  failureReasons(eventId: number, limit: number): Promise<Array<{ reason: string; count: number }>> {
    return this.execute(
      `select coalesce((select value from jsonb_each_text(step_errors) limit 1), 'unknown') as reason, count(*)::int as count
         from photos where event_id = ? and status = 'failed' group by 1 order by 2 desc, 1 limit ?`,
      [eventId, limit],
    );
  }

  findWithEvent(photoId: string): Promise<Photo | null> {
    return this.em.findOne(Photo, { id: photoId }, { populate: ['event'] });
  }

  async markProcessing(photoId: string): Promise<void> {
    await this.em.nativeUpdate(Photo, { id: photoId, status: { $ne: 'processed' } }, { status: 'processing' });
  }

  async saveProcessed(photoId: string, eventId: number, result: ProcessedPhoto): Promise<string[]> {
    return this.em.transactional(async (tx) => {
      const run = transactionRunner(tx);
      await lockBibReads(run, eventId);
      // Organiser rows survive reprocessing: they are the organiser's word, not the reader's.
      const before = await run<{ bib: string }>(
        "delete from photo_bibs where photo_id = ? and source <> 'organiser' returning bib",
        [photoId],
      );
      if (result.bibs.length) {
        const rows = result.bibs.map(({ read, judged }) => ({
          b: judged.bib,
          r: read.bib,
          c: read.confidence,
          s: judged.status,
          o: judged.source,
          p: read.partial,
          e: read.weakEnd ?? null,
          u: read.unsure ?? false,
          x: read.box?.x ?? null,
          y: read.box?.y ?? null,
          w: read.box?.width ?? null,
          h: read.box?.height ?? null,
        }));
        await run(
          `insert into photo_bibs (photo_id, event_id, bib, read_text, confidence, status, source, partial, weak_end, unsure, box_x, box_y, box_width, box_height)
           select ?, ?, x.b, x.r, x.c, x.s, x.o, x.p, x.e, x.u, x.x, x.y, x.w, x.h
             from jsonb_to_recordset(?::jsonb) as x(b text, r text, c real, s text, o text, p boolean, e text, u boolean, x real, y real, w real, h real)
            where not exists (select 1 from photo_bibs o where o.photo_id = ?::uuid and o.source = 'organiser' and o.bib = x.b)`,
          [photoId, eventId, JSON.stringify(rows), photoId],
        );
      }
      await tx.nativeDelete(Face, { photo: photoId });
      for (const face of result.faces) {
        tx.create(Face, {
          photo: photoId,
          event: eventId,
          embedding: face.embedding,
          descriptorVersion: face.descriptorVersion,
          quality: face.quality ?? null,
          score: face.score,
          boxX: face.box.x,
          boxY: face.box.y,
          boxWidth: face.box.width,
          boxHeight: face.box.height,
        });
      }
      const { largeKey, largeWidth, largeHeight, thumbnailKey, width, height, processedAt, stepErrors } = result;
      await tx.nativeUpdate(
        Photo,
        { id: photoId },
        {
          status: 'processed',
          largeKey,
          largeWidth,
          largeHeight,
          thumbnailKey,
          width,
          height,
          processedAt,
          stepErrors,
        },
      );
      if (result.publishAt)
        await tx.nativeUpdate(
          Photo,
          { id: photoId, publishedAt: null, hiddenAt: null },
          { publishedAt: result.publishAt },
        );
      const numbers = new Set([...before.map((r) => r.bib), ...result.bibs.map((b) => b.judged.bib)]);
      if (numbers.size === 0) return [];
      const changed = await settleUnsure(run, eventId, { photoId, bibs: [...numbers] });
      return changed.filter((id) => id !== photoId);
    });
  }

  async markFailed(photoId: string, reason: string): Promise<void> {
    await this.em.nativeUpdate(
      Photo,
      { id: photoId, status: { $ne: 'processed' } },
      { status: 'failed', stepErrors: { previews: reason.slice(0, 500) } },
    );
  }

  async largestPublishedFace(
    eventId: number,
  ): Promise<{ originalKey: string; box: { x: number; y: number; width: number; height: number } } | null> {
    const [face] = await this.execute<{
      original_key: string;
      box_x: number;
      box_y: number;
      box_width: number;
      box_height: number;
    }>(
      `select p.original_key, f.box_x, f.box_y, f.box_width, f.box_height
         from faces f join photos p on p.id = f.photo_id
        where p.event_id = ? and p.${PUBLISHED} order by f.box_width * f.box_height desc limit 1`,
      [eventId],
    );
    return face
      ? {
          originalKey: face.original_key,
          box: { x: face.box_x, y: face.box_y, width: face.box_width, height: face.box_height },
        }
      : null;
  }

  facesAfter(eventId: number, afterId: string, limit: number, skipIds: readonly string[] = []): Promise<FaceRow[]> {
    return runPrepared<FaceRow>(this.handle.statements(), PHOTO_FACES_AFTER, [eventId, afterId, limit, skipIds]);
  }

  async eventsWithFacesOlderThan(version: number): Promise<number[]> {
    const rows: Array<{ id: number }> = await this.execute(
      'select e.id from events e where e.deleting_at is null and exists (select 1 from faces f where f.event_id = e.id and f.descriptor_version < ?) order by e.id',
      [version],
    );
    return rows.map((r) => Number(r.id));
  }

  async withFacesOlderThan(eventId: number, version: number): Promise<string[]> {
    const rows = (await this.em
      .getConnection()
      .execute('select distinct photo_id::text as id from faces where event_id = ? and descriptor_version < ?', [
        eventId,
        version,
      ])) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }

  async markForReprocessing(id: string): Promise<void> {
    await this.em
      .getConnection()
      .execute("update photos set status = 'imported' where id = ? and status = 'processed'", [id]);
  }

  async bibReadsOf(eventId: number): Promise<StoredBibReadRow[]> {
    const rows = await this.execute<{
      id: string;
      read_text: string | null;
      bib: string;
      partial: boolean;
      weak_end: StoredBibReadRow['weakEnd'];
      unsure: boolean;
      status: StoredBibReadRow['status'];
      source: StoredBibReadRow['source'];
    }>(
      'select id::text as id, read_text, bib, partial, weak_end, unsure, status, source from photo_bibs where event_id = ?',
      [eventId],
    );
    return rows.map((r) => ({
      id: r.id,
      readText: r.read_text ?? r.bib,
      bib: r.bib,
      partial: r.partial,
      weakEnd: r.weak_end,
      unsure: r.unsure,
      status: r.status,
      source: r.source,
    }));
  }

  async setBibJudgements(eventId: number, changes: ReadonlyArray<{ id: string } & BibJudgement>): Promise<void> {
    if (changes.length === 0) return;
    const rows = changes.map((c) => ({ i: c.id, b: c.bib, s: c.status, o: c.source }));
    await this.em.transactional(async (tx) => {
      const run = transactionRunner(tx);
      await lockBibReads(run, eventId);
      // read_text is kept first: the row's first bib is what OCR read, whatever the later judgements.
      await run(
        `update photo_bibs pb set read_text = coalesce(pb.read_text, pb.bib), bib = x.b, status = x.s, source = x.o
           from jsonb_to_recordset(?::jsonb) as x(i bigint, b text, s text, o text)
          where pb.id = x.i and pb.event_id = ? and pb.source <> 'organiser'`,
        [JSON.stringify(rows), eventId],
      );
      await settleUnsure(run, eventId);
    });
  }

  async largeKeyOfFile(eventId: number, originalFileName: string): Promise<string | null> {
    const photo = await this.em.findOne(
      Photo,
      { event: eventId, originalFileName, largeKey: { $ne: null } },
      { fields: ['largeKey'] },
    );
    return photo?.largeKey ?? null;
  }

  findInEvent(eventId: number, id: string): Promise<Photo | null> {
    return this.em.findOne(Photo, { id, event: eventId });
  }

  async bibRowsOf(photoIds: readonly string[]): Promise<ReviewBibRow[]> {
    if (photoIds.length === 0) return [];
    const rows = await this.execute<BibRowSql>(
      `select id::text as id, photo_id::text as photo_id, bib, read_text, confidence, status, source, box_x, box_y, box_width, box_height
         from photo_bibs where photo_id = any(?::uuid[]) order by photo_bibs.photo_id, photo_bibs.id`,
      [sqlArray(photoIds)],
    );
    return rows.map((r) => ({
      id: r.id,
      photoId: r.photo_id,
      bib: r.bib,
      readText: r.source === 'organiser' && r.read_text === null ? null : (r.read_text ?? r.bib),
      confidence: r.confidence,
      status: r.status,
      source: r.source,
      box: r.box_x === null ? null : { x: r.box_x, y: r.box_y!, width: r.box_width!, height: r.box_height! },
    }));
  }

  async faceRowsOf(photoIds: readonly string[]): Promise<ReviewFaceRow[]> {
    if (photoIds.length === 0) return [];
    const rows = await this.execute<{
      id: string;
      photo_id: string;
      quality: number | null;
      score: number;
      box_x: number;
      box_y: number;
      box_width: number;
      box_height: number;
    }>(
      `select id::text as id, photo_id::text as photo_id, quality, score, box_x, box_y, box_width, box_height
         from faces where photo_id = any(?::uuid[]) order by faces.photo_id, faces.id`,
      [sqlArray(photoIds)],
    );
    return rows.map((r) => ({
      id: r.id,
      photoId: r.photo_id,
      quality: r.quality,
      score: r.score,
      box: { x: r.box_x, y: r.box_y, width: r.box_width, height: r.box_height },
    }));
  }

  async setOrganiserBib(
    eventId: number,
    photoId: string,
    bib: string,
    status: 'accepted' | 'rejected',
  ): Promise<number> {
    return this.em.transactional(async (tx): Promise<number> => {
      const run = transactionRunner(tx);
      await lockBibReads(run, eventId);
      // The photo row, locked: a concurrent delete or reprocessing waits; another event's photo is not touched.
      const [photo] = await run<{ id: string }>('select id from photos where id = ? and event_id = ? for update', [
        photoId,
        eventId,
      ]);
      if (!photo) return 0;
      const updated = await run<{ id: string }>(
        "update photo_bibs set status = ?, source = 'organiser' where photo_id = ? and bib = ? returning id",
        [status, photoId, bib],
      );
      if (!updated.length && status === 'accepted')
        await run(
          "insert into photo_bibs (photo_id, event_id, bib, confidence, status, source) values (?, ?, ?, 1, 'accepted', 'organiser')",
          [photoId, eventId, bib],
        );
      // The unsure reads of the number near this photo may have lost (or gained) their confirmation.
      await settleUnsure(run, eventId, { photoId, bibs: [bib] });
      return updated.length || (status === 'accepted' ? 1 : 0);
    });
  }

  async hide(eventId: number, id: string, at: Date): Promise<boolean> {
    return (
      (await this.em.nativeUpdate(Photo, { id, event: eventId, hiddenAt: null }, { hiddenAt: at, publishedAt: null })) >
      0
    );
  }

  async unhide(eventId: number, id: string, publishAt: Date | null): Promise<boolean> {
    const rows = await this.execute<{ id: string }>(
      `update photos set hidden_at = null, published_at = case when status = 'processed' then ?::timestamptz end
        where id = ? and event_id = ? and hidden_at is not null returning id`,
      [publishAt, id, eventId],
    );
    return rows.length > 0;
  }

  async remove(eventId: number, id: string): Promise<boolean> {
    return this.em.transactional(async (tx) => {
      const run = transactionRunner(tx);
      await lockBibReads(run, eventId);
      const held = await run<{ bib: string }>(
        'select distinct bib from photo_bibs where photo_id = ? and event_id = ?',
        [id, eventId],
      );
      const removed = await run<{ id: string }>('delete from photos where id = ? and event_id = ? returning id', [
        id,
        eventId,
      ]);
      // The unsure reads this photo confirmed count no longer unless another photo near them holds the number.
      if (removed.length && held.length)
        await settleUnsure(run, eventId, { photoId: id, bibs: held.map((r) => r.bib) });
      return removed.length > 0;
    });
  }

  async reviewQueue(eventId: number, afterId: string | null, limit: number): Promise<ReviewQueueRow[]> {
    const rows = await this.execute<{ id: string; no_bib: boolean; rejected_read: boolean; completed_read: boolean }>(
      `select * from (
         select p.id as uuid, p.id::text as id,
                not exists (select 1 from photo_bibs b where b.photo_id = p.id and b.${SEARCHABLE_READ}) as no_bib,
                exists (select 1 from photo_bibs b where b.photo_id = p.id and b.source <> 'organiser' and b.status = 'rejected') as rejected_read,
                exists (select 1 from photo_bibs b where b.photo_id = p.id and b.source <> 'organiser' and b.status = 'completed') as completed_read
           from photos p
          where p.event_id = ? and p.status = 'processed' and (?::uuid is null or p.id > ?::uuid)) q
        where no_bib or rejected_read or completed_read
        order by uuid limit ?`,
      [eventId, afterId, afterId, limit],
    );
    return rows.map((r) => ({ photoId: r.id, reasons: REVIEW_REASONS.filter((reason) => r[reason]) }));
  }
}

interface BibRowSql {
  id: string;
  photo_id: string;
  bib: string;
  read_text: string | null;
  confidence: number;
  status: ReviewBibRow['status'];
  source: ReviewBibRow['source'];
  box_x: number | null;
  box_y: number | null;
  box_width: number | null;
  box_height: number | null;
}

const REVIEW_REASONS: readonly ReviewReason[] = ['no_bib', 'rejected_read', 'completed_read'];

type Run = <T>(sql: string, params: unknown[]) => Promise<T[]>;

function transactionRunner(tx: EntityManager): Run {
  return (sql, params) => tx.getConnection().execute(sql, params, 'all', tx.getTransactionContext());
}

/** Taken first by every transaction that writes the event's bib reads (BIB_READS_LOCK). */
async function lockBibReads(run: Run, eventId: number): Promise<void> {
  await run('select pg_advisory_xact_lock(?, ?)', [BIB_READS_LOCK, eventId]);
}

/**
 * Settles unsure reads the rule counts: confirmed (`confirmedStatus`: accepted, or completed when a start list
 * completed it) while another photo within SIGHTING_SECONDS holds the number (counted or unconfirmed), by capture
 * time when both photos have one, else by import time when neither has; `unconfirmed` otherwise. The event's, or
 * those of one photo and of the numbers it holds or held (index lookups, whatever the event's size). Every write of
 * an event's reads runs it in its transaction, after `lockBibReads`. Writes only the reads whose status changes;
 * returns their photos.
 */
async function settleUnsure(run: Run, eventId: number, near?: { photoId: string; bibs: string[] }): Promise<string[]> {
  const targets = near
    ? `select b.id from photo_bibs b where b.photo_id = ?::uuid and b.unsure
       union
       select b.id from photo_bibs b where b.event_id = ? and b.bib = any(?::text[]) and b.unsure`
    : 'select b.id from photo_bibs b where b.event_id = ? and b.unsure';
  const targetParams = near ? [near.photoId, eventId, sqlArray(near.bibs)] : [eventId];
  const rows = await run<{ photo_id: string }>(
    `with judged as materialized (
       select b.id,
              case when exists (
                     select 1 from photo_bibs c join photos cp on cp.id = c.photo_id
                      where c.event_id = b.event_id and c.bib = b.bib and c.photo_id <> b.photo_id
                        and c.status in (${COUNTED_OR_UNCONFIRMED})
                        and case when bp.captured_at is not null
                                 then abs(extract(epoch from cp.captured_at - bp.captured_at)) <= ?
                                 else cp.captured_at is null and abs(extract(epoch from cp.created_at - bp.created_at)) <= ? end)
                   then case when b.source = 'completed' then ? else ? end
                   else 'unconfirmed' end as status
         from photo_bibs b join photos bp on bp.id = b.photo_id
        where b.id in (${targets}) and b.source <> 'organiser' and b.status in (${COUNTED_OR_UNCONFIRMED}))
     update photo_bibs b set status = j.status from judged j
      where b.id = j.id and b.status <> j.status
     returning b.photo_id::text as photo_id`,
    [SIGHTING_SECONDS, SIGHTING_SECONDS, confirmedStatus('completed'), confirmedStatus('read'), ...targetParams],
  );
  return [...new Set(rows.map((r) => r.photo_id))];
}
