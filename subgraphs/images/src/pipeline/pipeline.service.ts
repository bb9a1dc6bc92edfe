import { AnnouncePhotoStatus, AppError, ContentVersions, isUuid, newId, Principal } from '@em/core';
import { Event, EventsRepository, guardOperation, PhotosRepository, PhotoStatus } from '@em/core/data';
import { ObjectStore, objectKeys } from '@em/core/storage';
import { unsafeObjectKeyReason } from './object-key-safety';
import { JobProducer } from '@em/core/jobs';
import { probeImage } from '@em/core/media';
import { readExif } from './exif';
import { createHash } from 'node:crypto';
import path from 'node:path';

export type ImportOutcome =
  | { status: 'imported'; imageId: string }
  | { status: 'duplicate'; imageId: string }
  | { status: 'rejected'; reason: string };

export interface ImportedFile {
  key: string;
  outcome: ImportOutcome;
}

export interface ImportReport {
  imported: number;
  duplicates: number;
  rejected: number;
  files: ImportedFile[];
}

/** Failed photos the status lists one by one (the counts and reasons cover them all). */
const FAILED_PHOTOS_SHOWN = 20;

export interface PipelineStatus {
  isLive: boolean;
  wentLiveAt: Date | null;
  total: number;
  imported: number;
  queued: number;
  processing: number;
  processed: number;
  failed: number;
  live: number;
  /** Share of photos that are done (processed or failed), 0-1; 1 for an empty event. */
  progress: number;
  failures: Array<{ reason: string; count: number }>;
  /** The latest failed photos (FAILED_PHOTOS_SHOWN), each with its reason, to retry one by one. */
  failedPhotos: Array<{ imageId: string; fileName: string; reason: string }>;
  lastImportedAt: Date | null;
  lastProcessedAt: Date | null;
}

export interface PhotoSource {
  fileName: string;
  source: string;
  photographerName?: string | null;
  /** The photo's id when the caller chose it beforehand (a browser upload names its photo at its start). */
  photoId?: string;
}

function tally(report: ImportReport, key: string, outcome: ImportOutcome): void {
  report.files.push({ key, outcome });
  if (outcome.status === 'imported') report.imported++;
  else if (outcome.status === 'duplicate') report.duplicates++;
  else report.rejected++;
}

/** How many inbox files one import call takes; the rest wait for the next call. */
export const MAX_FILES_PER_IMPORT = 500;

/**
 * The organiser's photo pipeline: import (originals into S3 and photo rows, deduplicated by
 * content), process (one worker job per photo), go-live (publish), and the status of it all.
 */
export class PipelineService {
  constructor(
    private readonly events: EventsRepository,
    private readonly photos: PhotosRepository,
    private readonly store: ObjectStore,
    private readonly jobs: JobProducer,
    private readonly versions: Pick<ContentVersions, 'bumpContentVersion'>,
    private readonly announce: AnnouncePhotoStatus = async () => undefined,
  ) {}

  /**
   * Imports one file. A file already in the event (same content) is a duplicate and keeps its
   * photo; a file that is not a supported, decodable photo is rejected with the reason.
   */
  async importFile(event: Event, file: Buffer, origin: PhotoSource): Promise<ImportOutcome> {
    const probe = await probeImage(file);
    if (!probe.ok) return { status: 'rejected', reason: probe.reason };
    const contentHash = createHash('sha256').update(file).digest('hex');
    const existing = await this.photos.findByContentHash(event.id, contentHash);
    if (existing) return { status: 'duplicate', imageId: existing.id };

    const exif = await readExif(file, event.timeZone);
    const id = origin.photoId ?? newId();
    const photo = {
      id,
      eventId: event.id,
      contentHash,
      originalKey: objectKeys.original(event.id, id, probe.ext),
      originalFileName: path.basename(origin.fileName) || `photo${probe.ext}`,
      mimeType: probe.mime,
      fileSize: file.length,
      width: probe.width,
      height: probe.height,
      capturedAt: exif.capturedAt,
      photographerName: origin.photographerName ?? exif.artist,
      source: origin.source,
    };
    // The object first: a crash in between leaves an orphan object, never a row without its file.
    await this.store.put(photo.originalKey, file, probe.mime);
    try {
      await this.photos.insert(photo);
    } catch (err) {
      // The same content imported concurrently: the other import won.
      const winner = await this.photos.findByContentHash(event.id, contentHash);
      if (winner) return { status: 'duplicate', imageId: winner.id };
      throw err;
    }
    return { status: 'imported', imageId: photo.id };
  }

  /**
   * Imports the files in the event's inbox (`inbox/<event_id>/` in the bucket), or only the
   * given keys of it. Imported and duplicate files leave the inbox; rejected ones stay, with
   * their reason in the report.
   */
  async importInbox(
    principal: Principal,
    orgId: number,
    eventId: number,
    keys?: string[] | null,
  ): Promise<ImportReport> {
    const event = await guardOperation(this.events, principal, 'importPhotos', orgId, eventId);
    const prefix = objectKeys.inbox(eventId);
    let wanted: string[];
    if (keys && keys.length) {
      const outside = keys.filter(
        (k) => typeof k !== 'string' || !k.startsWith(prefix) || unsafeObjectKeyReason(k) !== null,
      );
      if (outside.length) {
        const shown = outside.slice(0, 3).map((k) => JSON.stringify(String(k).slice(0, 200)));
        throw new AppError(
          'BAD_REQUEST',
          `keys must name files in the event's inbox ${prefix} (no "."/".." or empty segments, encoded or not): ${shown.join(', ')}`,
        );
      }
      wanted = [...new Set(keys)];
    } else {
      wanted = (await this.store.list(prefix)).map((o) => o.key);
    }
    if (wanted.length > MAX_FILES_PER_IMPORT) wanted = wanted.slice(0, MAX_FILES_PER_IMPORT);

    const report: ImportReport = { imported: 0, duplicates: 0, rejected: 0, files: [] };
    for (const key of wanted) {
      let outcome: ImportOutcome;
      try {
        const file = await this.store.getBuffer(key);
        outcome = await this.importFile(event, file, { fileName: key.slice(prefix.length), source: 'inbox' });
      } catch (err) {
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 404 || (err as Error).name === 'NoSuchKey')
          outcome = { status: 'rejected', reason: 'no such file in the inbox' };
        else throw err;
      }
      if (outcome.status !== 'rejected') await this.store.delete(key);
      tally(report, key, outcome);
    }
    return report;
  }

  /**
   * Imports files uploaded with the request (multipart). Each file is read only when its turn
   * comes; its outcome is reported under its file name.
   */
  async importUploads(
    principal: Principal,
    orgId: number,
    eventId: number,
    files: Array<() => Promise<{ fileName: string; content: Buffer }>>,
    photographerName: string | null,
  ): Promise<ImportReport> {
    const event = await guardOperation(this.events, principal, 'importPhotos', orgId, eventId);
    const report: ImportReport = { imported: 0, duplicates: 0, rejected: 0, files: [] };
    for (const read of files) {
      const file = await read();
      const outcome = await this.importFile(event, file.content, {
        fileName: file.fileName,
        source: 'upload',
        photographerName,
      });
      tally(report, file.fileName, outcome);
    }
    return report;
  }

  /** Queues every imported photo (and, on request, the failed ones again) for processing. */
  async process(
    principal: Principal,
    orgId: number,
    eventId: number,
    retryFailed = false,
  ): Promise<{ queued: number }> {
    await guardOperation(this.events, principal, 'processPhotos', orgId, eventId);
    return { queued: await this.queuePending(eventId, retryFailed, principal.requestId) };
  }

  /** Queues one failed photo of the event again (the photos page's Retry of a photo): 404 not the event's, 409 not failed. */
  async retryPhoto(principal: Principal, orgId: number, eventId: number, imageId: string): Promise<{ queued: number }> {
    await guardOperation(this.events, principal, 'retryPhoto', orgId, eventId);
    const photoId = isUuid(imageId) ? imageId.toLowerCase() : null;
    const [queued] = photoId ? await this.photos.markQueued(eventId, ['failed'], [photoId]) : [];
    if (!queued) {
      const photo = photoId ? await this.photos.findInEvent(eventId, photoId) : null;
      if (!photo) throw new AppError('NOT_FOUND', 'Image not found in this event');
      throw new AppError('CONFLICT', `Only a failed photo can be retried: this one is ${photo.status}`);
    }
    await this.jobs.enqueue('photos', { photoId: queued, httpRequestId: principal.requestId });
    await this.announce({ eventId, photoId: queued, status: 'queued', reason: null });
    return { queued: 1 };
  }

  /**
   * Marks the event's imported photos (and failed ones, on request) queued and gives each a job;
   * photos still queued from before get their job again if it was lost. Returns how many.
   */
  async queuePending(eventId: number, retryFailed = false, httpRequestId?: string): Promise<number> {
    const statuses: PhotoStatus[] = retryFailed ? ['imported', 'queued', 'failed'] : ['imported', 'queued'];
    const ids = await this.photos.markQueued(eventId, statuses);
    for (const photoId of ids) {
      await this.jobs.enqueue('photos', { photoId, httpRequestId });
      await this.announce({ eventId, photoId, status: 'queued', reason: null });
    }
    return ids.length;
  }

  /**
   * Queues the given photos of the event that are still only imported (an import that processes as
   * it goes: the worker starts on the first photo while the rest are being imported). Returns how many.
   */
  async queueImported(eventId: number, photoIds: string[]): Promise<number> {
    const ids = await this.photos.markQueued(eventId, ['imported'], photoIds);
    for (const photoId of ids) {
      await this.jobs.enqueue('photos', { photoId });
      await this.announce({ eventId, photoId, status: 'queued', reason: null });
    }
    return ids.length;
  }

  /** Publishes every processed photo; from then on the worker publishes new ones as they finish. */
  async goLive(principal: Principal, orgId: number, eventId: number): Promise<{ published: number; wentLiveAt: Date }> {
    await guardOperation(this.events, principal, 'goLive', orgId, eventId);
    return this.publish(eventId);
  }

  /** The publishing step itself (also used by the demo seed). */
  async publish(eventId: number): Promise<{ published: number; wentLiveAt: Date }> {
    const now = new Date();
    const published = await this.photos.publishProcessed(eventId, now);
    const wentLiveAt = await this.events.markWentLive(eventId, now);
    await this.versions.bumpContentVersion(eventId);
    return { published, wentLiveAt };
  }

  /** Where processing stands, for trusted callers (the CLI and the demo seed) waiting on it. */
  async progress(eventId: number): Promise<{ total: number; open: number; failed: number; live: number }> {
    const rows = await this.photos.tallyByStatus(eventId);
    const count = (statuses: PhotoStatus[]) =>
      rows.filter((r) => statuses.includes(r.status)).reduce((n, r) => n + r.count, 0);
    return {
      total: count(['imported', 'queued', 'processing', 'processed', 'failed']),
      open: count(['imported', 'queued', 'processing']),
      failed: count(['failed']),
      live: rows.reduce((n, r) => n + r.live, 0),
    };
  }

  /** The event's latest failed photos with their reasons, for trusted callers (the CLI tells which failed and why). */
  failedPhotos(eventId: number): Promise<Array<{ imageId: string; fileName: string; reason: string }>> {
    return this.photos
      .failedPhotos(eventId, FAILED_PHOTOS_SHOWN)
      .then((rows) => rows.map((p) => ({ imageId: p.id, fileName: p.fileName, reason: p.reason })));
  }

  async status(principal: Principal, orgId: number, eventId: number): Promise<PipelineStatus> {
    const event = await guardOperation(this.events, principal, 'pipelineStatus', orgId, eventId);
    const rows = await this.photos.tallyByStatus(eventId);
    const failures = await this.photos.failureReasons(eventId, 20);
    const by = (s: PhotoStatus) => rows.find((r) => r.status === s)?.count ?? 0;
    const total = rows.reduce((n, r) => n + r.count, 0);
    const failedPhotos = by('failed') ? await this.photos.failedPhotos(eventId, FAILED_PHOTOS_SHOWN) : [];
    // Aggregates come back from the driver as text or Date depending on the column path.
    const latest = (pick: (r: (typeof rows)[number]) => Date | string | null) =>
      rows
        .map(pick)
        .filter((d): d is Date | string => !!d)
        .map((d) => new Date(d))
        .sort((a, b) => b.getTime() - a.getTime())[0] ?? null;
    return {
      isLive: !!event.wentLiveAt,
      wentLiveAt: event.wentLiveAt ?? null,
      total,
      imported: by('imported'),
      queued: by('queued'),
      processing: by('processing'),
      processed: by('processed'),
      failed: by('failed'),
      live: rows.reduce((n, r) => n + r.live, 0),
      progress: total === 0 ? 1 : (by('processed') + by('failed')) / total,
      failures,
      failedPhotos: failedPhotos.map((p) => ({ imageId: p.id, fileName: p.fileName, reason: p.reason })),
      lastImportedAt: latest((r) => r.lastCreated),
      lastProcessedAt: latest((r) => r.lastProcessed),
    };
  }
}
