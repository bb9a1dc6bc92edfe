import { FACE_DESCRIPTOR_VERSION } from '../../faces/embedding';
import { Event, Face, Photo, PhotoBib, PhotoStatus } from '../../db/entities';
import { newId, normaliseBib } from '../../ids';
import { PageRequest } from '../../pagination';
import { FaceRow } from '../face-rows';
import {
  GalleryRow,
  NewPhoto,
  PhotoBox,
  PhotosRepository,
  EventPhotoCounts,
  FailedPhotoRow,
  PhotoStatusTally,
  ProcessedPhoto,
  ReviewBibRow,
  ReviewFaceRow,
  ReviewQueueRow,
  ReviewReason,
} from '../photos.repository';
import { confirmedStatus, SIGHTING_SECONDS } from '../../bibs/bib-read-rule';
import type { BibJudgement, BibReadSource, BibReadStatus, StoredBibReadRow, WeakEnd } from '../../bibs/bib-read-rule';
import { InMemoryEventsRepository } from './events.fake';

/** The gallery order: capture time ascending, untimed last, then id. */
function byGalleryOrder(a: Photo, b: Photo): number {
  const at = a.capturedAt?.getTime() ?? Infinity;
  const bt = b.capturedAt?.getTime() ?? Infinity;
  if (at !== bt) return at < bt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

type FaceBox = ProcessedPhoto['faces'][number]['box'];

const page = <T>(items: T[], request: PageRequest) => items.slice(request.offset, request.offset + request.pageSize);

/**
 * Photos, their BIBs and faces in memory, with the same rules as the SQL repository (published =
 * `publishedAt` set). `add` takes any fields of a photo; the event comes from `events` when given.
 */
export class InMemoryPhotosRepository implements PhotosRepository {
  readonly rows = new Map<string, Photo>();
  readonly bibs: Array<
    Pick<PhotoBib, 'bib' | 'confidence'> & {
      id?: string;
      photoId: string;
      eventId: number;
      readText?: string;
      partial?: boolean;
      weakEnd?: WeakEnd | null;
      unsure?: boolean;
      status?: BibReadStatus;
      source?: BibReadSource;
      box?: PhotoBox | null;
    }
  > = [];
  private nextBibId = 1;
  readonly faces: Array<
    Pick<Face, 'embedding' | 'score' | 'descriptorVersion' | 'quality'> & {
      id: number;
      photoId: string;
      eventId: number;
      box?: FaceBox;
    }
  > = [];
  private nextFaceId = 1;

  constructor(private readonly events?: InMemoryEventsRepository) {}

  add(fields: Partial<Omit<Photo, 'event'>> & { eventId: number; bibs?: string[] }): Photo {
    const { eventId, bibs = [], ...rest } = fields;
    const photo = Object.assign(
      new Photo(),
      {
        contentHash: newId(),
        originalFileName: 'photo.jpg',
        mimeType: 'image/jpeg',
        largeKey: 'large.jpg',
        thumbnailKey: 'thumb.jpg',
        status: 'processed',
      },
      rest,
    );
    photo.originalKey ??= `originals/${eventId}/${photo.id}.jpg`;
    photo.event = { id: eventId } as Event;
    this.rows.set(photo.id, photo);
    for (const bib of bibs)
      this.bibs.push({
        id: String(this.nextBibId++),
        photoId: photo.id,
        eventId,
        bib: normaliseBib(bib),
        confidence: 1,
      });
    return photo;
  }

  addFace(photoId: string, embedding: Buffer, descriptorVersion: number = FACE_DESCRIPTOR_VERSION): void {
    this.faces.push({
      id: this.nextFaceId++,
      photoId,
      eventId: this.rows.get(photoId)!.event.id,
      embedding,
      descriptorVersion,
      score: 1,
    });
  }

  private withEvent(photo: Photo): Photo {
    const event = this.events?.rows.get(photo.event.id);
    if (event) photo.event = event;
    return photo;
  }

  private published(eventId?: number): Photo[] {
    return [...this.rows.values()]
      .filter((p) => p.publishedAt && (eventId === undefined || p.event.id === eventId))
      .sort(byGalleryOrder);
  }

  async publishedCount(eventId: number): Promise<number> {
    return this.published(eventId).length;
  }

  async galleryPage(eventId: number, request: PageRequest): Promise<{ total: number; rows: GalleryRow[] }> {
    const all = this.published(eventId);
    const rows = page(all, request).map((p) => ({
      id: p.id,
      event_id: p.event.id,
      large_key: p.largeKey ?? null,
      thumbnail_key: p.thumbnailKey ?? null,
      large_width: p.largeWidth ?? null,
      large_height: p.largeHeight ?? null,
      width: p.width ?? null,
      height: p.height ?? null,
      captured_at_ms: p.capturedAt ? p.capturedAt.getTime() : null,
      photographer_name: p.photographerName ?? null,
      original_file_name: p.originalFileName,
      source: p.source,
      original_key: p.originalKey,
      external_url: p.externalUrl ?? null,
    }));
    return { total: all.length, rows };
  }

  async publishedWithBib(
    eventId: number,
    bib: string,
    request: PageRequest,
  ): Promise<{ total: number; ids: string[] }> {
    const wanted = normaliseBib(bib);
    const searchable = (b: { status?: BibReadStatus }) =>
      b.status === undefined || b.status === 'accepted' || b.status === 'completed';
    const withBib = new Set(
      this.bibs.filter((b) => b.eventId === eventId && b.bib === wanted && searchable(b)).map((b) => b.photoId),
    );
    const all = this.published(eventId).filter((p) => withBib.has(p.id));
    return { total: all.length, ids: page(all, request).map((p) => p.id) };
  }

  async publishedAmong(ids: readonly string[], eventId?: number): Promise<Set<string>> {
    const wanted = new Set(ids);
    return new Set(
      this.published(eventId)
        .filter((p) => wanted.has(p.id))
        .map((p) => p.id),
    );
  }

  async findPublished(eventId: number, id: string): Promise<Photo | null> {
    return this.published(eventId).find((p) => p.id === id) ?? null;
  }

  async findPublishedInEvent(eventId: number, ids: readonly string[]): Promise<Photo[]> {
    return this.published(eventId).filter((p) => ids.includes(p.id));
  }

  async findPublishedWithEvent(ids: readonly string[]): Promise<Photo[]> {
    return this.published()
      .filter((p) => ids.includes(p.id))
      .map((p) => this.withEvent(p));
  }

  async countsByHour(eventId: number): Promise<Array<{ day: string; hour: number; count: number }>> {
    const counts = new Map<string, number>();
    for (const p of this.published(eventId)) {
      if (!p.capturedAt) continue;
      const key = `${p.capturedAt.toISOString().slice(0, 10)}|${p.capturedAt.getUTCHours()}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts]
      .map(([key, count]) => ({ day: key.split('|')[0], hour: Number(key.split('|')[1]), count }))
      .sort((a, b) => (a.day === b.day ? a.hour - b.hour : a.day < b.day ? -1 : 1));
  }

  async publishedCapturedBetween(
    eventId: number,
    from: Date,
    to: Date,
    request: PageRequest,
  ): Promise<{ total: number; photos: Photo[] }> {
    const all = this.published(eventId).filter((p) => p.capturedAt && p.capturedAt >= from && p.capturedAt < to);
    return { total: all.length, photos: page(all, request) };
  }

  async findByContentHash(eventId: number, contentHash: string): Promise<Photo | null> {
    return [...this.rows.values()].find((p) => p.event.id === eventId && p.contentHash === contentHash) ?? null;
  }

  async insert(photo: NewPhoto): Promise<void> {
    // Checked and added without a pause between, as the unique index does for concurrent imports.
    const taken = [...this.rows.values()].some(
      (p) => p.event.id === photo.eventId && p.contentHash === photo.contentHash,
    );
    if (taken) throw new Error('duplicate key value violates unique constraint');
    this.add({ ...photo, status: 'imported', largeKey: null, thumbnailKey: null });
  }

  async markQueued(eventId: number, statuses: PhotoStatus[], only?: string[]): Promise<string[]> {
    const photos = [...this.rows.values()].filter(
      (p) => p.event.id === eventId && statuses.includes(p.status) && (!only || only.includes(p.id)),
    );
    for (const p of photos) Object.assign(p, { status: 'queued', stepErrors: null });
    return photos.map((p) => p.id);
  }

  async publishProcessed(eventId: number, at: Date): Promise<number> {
    const photos = [...this.rows.values()].filter(
      (p) => p.event.id === eventId && p.status === 'processed' && !p.publishedAt && !p.hiddenAt,
    );
    for (const p of photos) p.publishedAt = at;
    return photos.length;
  }

  async countsOfEvents(eventIds: readonly number[]): Promise<EventPhotoCounts[]> {
    const counts = new Map<number, EventPhotoCounts>();
    for (const p of this.rows.values()) {
      if (!eventIds.includes(p.event.id)) continue;
      const c = counts.get(p.event.id) ?? { eventId: p.event.id, total: 0, processed: 0, failed: 0, live: 0 };
      c.total++;
      if (p.status === 'processed') c.processed++;
      if (p.status === 'failed') c.failed++;
      if (p.publishedAt) c.live++;
      counts.set(p.event.id, c);
    }
    return [...counts.values()];
  }

  async tallyByStatus(eventId: number): Promise<PhotoStatusTally[]> {
    const tallies = new Map<PhotoStatus, PhotoStatusTally>();
    for (const p of this.rows.values()) {
      if (p.event.id !== eventId) continue;
      const t = tallies.get(p.status) ?? {
        status: p.status,
        count: 0,
        lastCreated: null,
        lastProcessed: null,
        live: 0,
      };
      t.count++;
      if (p.publishedAt) t.live++;
      if (!t.lastCreated || p.createdAt > new Date(t.lastCreated)) t.lastCreated = p.createdAt;
      if (p.processedAt && (!t.lastProcessed || p.processedAt > new Date(t.lastProcessed)))
        t.lastProcessed = p.processedAt;
      tallies.set(p.status, t);
    }
    return [...tallies.values()];
  }

  async failedPhotos(eventId: number, limit: number): Promise<FailedPhotoRow[]> {
    return [...this.rows.values()]
      .filter((p) => p.event.id === eventId && p.status === 'failed')
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map((p) => ({
        id: p.id,
        fileName: p.originalFileName,
        reason: Object.values(p.stepErrors ?? {})[0] ?? 'unknown',
      }));
  }

  async failureReasons(eventId: number, limit: number): Promise<Array<{ reason: string; count: number }>> {
    const counts = new Map<string, number>();
    for (const p of this.rows.values()) {
      if (p.event.id !== eventId || p.status !== 'failed') continue;
      const reason = Object.values(p.stepErrors ?? {})[0] ?? 'unknown';
      counts.set(reason, (counts.get(reason) ?? 0) + 1);
    }
    return [...counts]
      .map(([reason, count]) => ({ reason, count }))
      .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1))
      .slice(0, limit);
  }

  async findWithEvent(photoId: string): Promise<Photo | null> {
    const photo = this.rows.get(photoId);
    return photo ? this.withEvent(photo) : null;
  }

  async markProcessing(photoId: string): Promise<void> {
    const photo = this.rows.get(photoId);
    if (photo && photo.status !== 'processed') photo.status = 'processing';
  }

  async saveProcessed(photoId: string, eventId: number, result: ProcessedPhoto): Promise<string[]> {
    const photo = this.rows.get(photoId)!;
    const { bibs, faces, publishAt, ...fields } = result;
    Object.assign(photo, fields, { status: 'processed' });
    if (publishAt && !photo.publishedAt && !photo.hiddenAt) photo.publishedAt = publishAt;
    const before = this.bibs.filter((b) => b.photoId === photoId && b.source !== 'organiser').map((b) => b.bib);
    this.bibs.splice(
      0,
      this.bibs.length,
      ...this.bibs.filter((b) => b.photoId !== photoId || b.source === 'organiser'),
    );
    const organisers = new Set(this.bibs.filter((b) => b.photoId === photoId).map((b) => b.bib));
    for (const { read, judged } of bibs) {
      if (organisers.has(judged.bib)) continue;
      const box = read.box ?? null;
      this.bibs.push({
        id: String(this.nextBibId++),
        photoId,
        eventId,
        bib: judged.bib,
        readText: read.bib,
        confidence: read.confidence,
        partial: read.partial,
        weakEnd: read.weakEnd ?? null,
        unsure: read.unsure ?? false,
        status: judged.status,
        source: judged.source,
        box,
      });
    }
    this.faces.splice(0, this.faces.length, ...this.faces.filter((f) => f.photoId !== photoId));
    for (const face of faces) {
      const { embedding, descriptorVersion, score, box } = face;
      this.faces.push({
        id: this.nextFaceId++,
        photoId,
        eventId,
        embedding,
        descriptorVersion,
        quality: face.quality ?? null,
        score,
        box,
      });
    }
    const numbers = new Set([...before, ...bibs.map((b) => b.judged.bib)]);
    if (numbers.size === 0) return [];
    return this.settleUnsure(eventId, { photoId, bibs: [...numbers] }).filter((id) => id !== photoId);
  }

  async markFailed(photoId: string, reason: string): Promise<void> {
    const photo = this.rows.get(photoId);
    if (photo && photo.status !== 'processed')
      Object.assign(photo, { status: 'failed', stepErrors: { previews: reason.slice(0, 500) } });
  }

  async largestPublishedFace(eventId: number): Promise<{ originalKey: string; box: FaceBox } | null> {
    const published = new Set(this.published(eventId).map((p) => p.id));
    const area = (box?: FaceBox) => (box ? box.width * box.height : -1);
    const largest = this.faces
      .filter((f) => published.has(f.photoId) && f.box)
      .sort((a, b) => area(b.box) - area(a.box))[0];
    return largest ? { originalKey: this.rows.get(largest.photoId)!.originalKey, box: { ...largest.box! } } : null;
  }

  async facesAfter(
    eventId: number,
    afterId: string,
    limit: number,
    skipIds: readonly string[] = [],
  ): Promise<FaceRow[]> {
    const skip = new Set(skipIds);
    return this.faces
      .filter((f) => f.eventId === eventId && f.id > Number(afterId) && !skip.has(String(f.id)))
      .sort((a, b) => a.id - b.id)
      .slice(0, limit)
      .map((f) => ({
        id: String(f.id),
        ref: f.photoId,
        embedding: f.embedding,
        version: f.descriptorVersion,
        quality: f.quality ?? null,
        group: null,
      }));
  }

  async eventsWithFacesOlderThan(version: number): Promise<number[]> {
    return [...new Set(this.faces.filter((f) => f.descriptorVersion < version).map((f) => f.eventId))].sort(
      (a, b) => a - b,
    );
  }

  async withFacesOlderThan(eventId: number, version: number): Promise<string[]> {
    return [
      ...new Set(
        this.faces.filter((f) => f.eventId === eventId && f.descriptorVersion < version).map((f) => f.photoId),
      ),
    ];
  }

  async markForReprocessing(id: string): Promise<void> {
    const row = this.rows.get(id);
    if (row?.status === 'processed') row.status = 'imported';
  }

  async largeKeyOfFile(eventId: number, originalFileName: string): Promise<string | null> {
    return (
      [...this.rows.values()].find(
        (p) => p.event.id === eventId && p.originalFileName === originalFileName && p.largeKey,
      )?.largeKey ?? null
    );
  }

  async bibReadsOf(eventId: number): Promise<StoredBibReadRow[]> {
    return this.bibs
      .filter((b) => b.eventId === eventId)
      .map((b) => ({
        id: b.id!,
        readText: b.readText ?? b.bib,
        bib: b.bib,
        partial: b.partial ?? false,
        weakEnd: b.weakEnd ?? null,
        unsure: b.unsure ?? false,
        status: b.status ?? 'accepted',
        source: b.source ?? 'read',
      }));
  }

  /** The repository's settling of unsure reads: the event's, or those of one photo and of the numbers given. */
  private settleUnsure(eventId: number, near?: { photoId: string; bibs: string[] }): string[] {
    const moment = (id: string) => {
      const photo = this.rows.get(id);
      return { captured: photo?.capturedAt?.getTime() ?? null, created: photo?.createdAt?.getTime() ?? 0 };
    };
    const close = (a: string, b: string) => {
      const [x, y] = [moment(a), moment(b)];
      if (x.captured !== null)
        return y.captured !== null && Math.abs(x.captured - y.captured) <= SIGHTING_SECONDS * 1000;
      return y.captured === null && Math.abs(x.created - y.created) <= SIGHTING_SECONDS * 1000;
    };
    const counted = (s?: BibReadStatus) => s === 'accepted' || s === 'completed' || s === 'unconfirmed';
    const changed = new Set<string>();
    for (const b of this.bibs) {
      if (b.eventId !== eventId || !b.unsure || b.source === 'organiser' || !counted(b.status)) continue;
      if (near && b.photoId !== near.photoId && !near.bibs.includes(b.bib)) continue;
      const held = this.bibs.some(
        (c) =>
          c.eventId === eventId &&
          c.bib === b.bib &&
          c.photoId !== b.photoId &&
          counted(c.status) &&
          this.rows.has(c.photoId) &&
          close(b.photoId, c.photoId),
      );
      const status = held ? confirmedStatus(b.source === 'completed' ? 'completed' : 'read') : 'unconfirmed';
      if (b.status !== status) {
        b.status = status;
        changed.add(b.photoId);
      }
    }
    return [...changed];
  }

  async setBibJudgements(eventId: number, changes: ReadonlyArray<{ id: string } & BibJudgement>): Promise<void> {
    for (const change of changes) {
      const row = this.bibs.find((b) => b.id === change.id && b.eventId === eventId && b.source !== 'organiser');
      if (row)
        Object.assign(row, {
          readText: row.readText ?? row.bib,
          bib: change.bib,
          status: change.status,
          source: change.source,
        });
    }
    if (changes.length) this.settleUnsure(eventId);
  }

  async findInEvent(eventId: number, id: string): Promise<Photo | null> {
    const photo = this.rows.get(id);
    return photo && photo.event.id === eventId ? photo : null;
  }

  async bibRowsOf(photoIds: readonly string[]): Promise<ReviewBibRow[]> {
    const wanted = new Set(photoIds);
    return this.bibs
      .filter((b) => wanted.has(b.photoId))
      .map((b) => {
        const source = b.source ?? 'read';
        const readText = source === 'organiser' && b.readText === undefined ? null : (b.readText ?? b.bib);
        return {
          id: b.id!,
          photoId: b.photoId,
          bib: b.bib,
          readText,
          confidence: b.confidence,
          status: b.status ?? 'accepted',
          source,
          box: b.box ?? null,
        };
      })
      .sort((a, b) => (a.photoId === b.photoId ? Number(a.id) - Number(b.id) : a.photoId < b.photoId ? -1 : 1));
  }

  async faceRowsOf(photoIds: readonly string[]): Promise<ReviewFaceRow[]> {
    const wanted = new Set(photoIds);
    return this.faces
      .filter((f) => wanted.has(f.photoId))
      .sort((a, b) => (a.photoId === b.photoId ? a.id - b.id : a.photoId < b.photoId ? -1 : 1))
      .map((f) => ({
        id: String(f.id),
        photoId: f.photoId,
        quality: f.quality ?? null,
        score: f.score,
        box: f.box ?? { x: 0, y: 0, width: 0, height: 0 },
      }));
  }

  async setOrganiserBib(
    eventId: number,
    photoId: string,
    bib: string,
    status: 'accepted' | 'rejected',
  ): Promise<number> {
    if (!(await this.findInEvent(eventId, photoId))) return 0;
    const rows = this.bibs.filter((b) => b.photoId === photoId && b.bib === bib);
    for (const row of rows) Object.assign(row, { status, source: 'organiser' });
    if (!rows.length && status === 'accepted')
      this.bibs.push({
        id: String(this.nextBibId++),
        photoId,
        eventId,
        bib,
        confidence: 1,
        status: 'accepted',
        source: 'organiser',
      });
    this.settleUnsure(eventId, { photoId, bibs: [bib] });
    return rows.length || (status === 'accepted' ? 1 : 0);
  }

  async hide(eventId: number, id: string, at: Date): Promise<boolean> {
    const photo = await this.findInEvent(eventId, id);
    if (!photo || photo.hiddenAt) return false;
    Object.assign(photo, { hiddenAt: at, publishedAt: null });
    return true;
  }

  async unhide(eventId: number, id: string, publishAt: Date | null): Promise<boolean> {
    const photo = await this.findInEvent(eventId, id);
    if (!photo?.hiddenAt) return false;
    Object.assign(photo, { hiddenAt: null, publishedAt: photo.status === 'processed' ? publishAt : null });
    return true;
  }

  async remove(eventId: number, id: string): Promise<boolean> {
    if (!(await this.findInEvent(eventId, id))) return false;
    const held = this.bibs.filter((b) => b.photoId === id).map((b) => b.bib);
    this.rows.delete(id);
    this.bibs.splice(0, this.bibs.length, ...this.bibs.filter((b) => b.photoId !== id));
    this.faces.splice(0, this.faces.length, ...this.faces.filter((f) => f.photoId !== id));
    this.settleUnsure(eventId, { photoId: id, bibs: held });
    return true;
  }

  async reviewQueue(eventId: number, afterId: string | null, limit: number): Promise<ReviewQueueRow[]> {
    const queue: ReviewQueueRow[] = [];
    const photos = [...this.rows.values()].filter(
      (p) => p.event.id === eventId && p.status === 'processed' && (afterId === null || p.id > afterId),
    );
    for (const photo of photos.sort((a, b) => (a.id < b.id ? -1 : 1))) {
      const rows = this.bibs.filter((b) => b.photoId === photo.id);
      const status = (b: (typeof rows)[number]) => b.status ?? 'accepted';
      const byReader = rows.filter((b) => b.source !== 'organiser');
      const flags: Record<ReviewReason, boolean> = {
        no_bib: !rows.some((b) => status(b) === 'accepted' || status(b) === 'completed'),
        rejected_read: byReader.some((b) => status(b) === 'rejected'),
        completed_read: byReader.some((b) => status(b) === 'completed'),
      };
      const reasons = (Object.keys(flags) as ReviewReason[]).filter((reason) => flags[reason]);
      if (reasons.length) queue.push({ photoId: photo.id, reasons });
      if (queue.length >= limit) break;
    }
    return queue;
  }
}
