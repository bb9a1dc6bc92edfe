import { Config, connectRedis, ContentVersions, photoStatusChannel } from '@em/core';
import { Orm, SqlEventsRepository, SqlPhotosRepository } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { JobQueues } from '@em/core/jobs';
import { PipelineService } from '@em/subgraph-images/pipeline';
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { awaitProcessing, TransitionFeed } from './await-processing';
import { progress } from './progress';

const PHOTO_EXTENSIONS = /\.(jpe?g|png|webp|tiff?|heic|heif)$/i;

/**
 * A listed file's bytes, read from the file it still is: opened without following a link and without waiting on a
 * pipe, then checked to be a regular file within the upload limit (a name listed as a photo may have been turned into a
 * link to a private file, a FIFO or a device since). A string: why it is not imported.
 */
function readListedFile(file: string, maxBytes: number): Buffer | string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return 'no longer a regular file of the folder (moved, or turned into a link)';
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return 'not a regular file';
    if (stat.size > maxBytes) return `larger than the upload limit of ${maxBytes} bytes`;
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else if (entry.isFile() && PHOTO_EXTENSIONS.test(entry.name)) out.push(full);
  }
  return out.sort();
}

/**
 * `import-photos`: a local folder into an event through the real pipeline: import (dedupe, reasons
 * for refused files), process by the ml-worker (the platform must be running), then go-live. Each
 * photo is queued as soon as it is imported, so the worker processes while the import goes on.
 */
export interface ImportSummary {
  imported: number;
  duplicate: number;
  rejected: number;
  /** Photos the worker could not process (a corrupt file the header check let through), with their reasons. */
  failed: number;
  failures: Array<{ fileName: string; reason: string }>;
  published: number | null;
}

export async function importFolder(orm: Orm, cfg: Config, flags: Record<string, string>): Promise<ImportSummary> {
  const eventId = Number(flags.event);
  const dir = flags.dir;
  if (!Number.isSafeInteger(eventId) || eventId < 1) throw new Error('--event must be a positive integer');
  if (!dir || !statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new Error('--dir must be a folder');
  const event = await new SqlEventsRepository(orm).findById(eventId);
  if (!event) throw new Error(`no event ${eventId}`);

  const store = new ObjectStore(cfg);
  const jobs = new JobQueues(cfg.REDIS_URL);
  const redis = connectRedis(cfg.REDIS_URL);
  const events = new SqlEventsRepository(orm);
  const pipeline = new PipelineService(
    events,
    new SqlPhotosRepository(orm),
    store,
    jobs,
    new ContentVersions(events, redis),
  );
  try {
    const files = filesUnder(dir);
    const counts = { imported: 0, duplicate: 0, rejected: 0 };
    const rejected: string[] = [];
    for (const [i, file] of files.entries()) {
      const bytes = readListedFile(file, cfg.UPLOAD_MAX_FILE_BYTES);
      const outcome =
        typeof bytes === 'string'
          ? ({ status: 'rejected', reason: bytes } as const)
          : await pipeline.importFile(event, bytes, {
              fileName: path.relative(dir, file),
              source: 'cli',
              photographerName: flags.photographer || null,
            });
      counts[outcome.status]++;
      if (outcome.status === 'imported' && !flags['no-process'] && !flags['queue-after-import'])
        await pipeline.queueImported(eventId, [outcome.imageId]);
      if (outcome.status === 'rejected') rejected.push(`${path.relative(dir, file)}: ${outcome.reason}`);
      progress(
        'import ',
        i + 1,
        files.length,
        `(${counts.imported} new, ${counts.duplicate} duplicates, ${counts.rejected} refused)`,
      );
    }
    if (process.stdout.isTTY) process.stdout.write('\n');
    for (const line of rejected) console.log(`  refused ${line}`);
    if (flags['no-process']) return { ...counts, failed: 0, failures: [], published: null };

    await pipeline.queuePending(eventId);
    const { failed } = await awaitProcessing(
      () => pipeline.progress(eventId),
      photoTransitions(redis, eventId),
      ({ total, open, failed }) => progress('process', total - open, total, failed ? `(${failed} failed)` : ''),
    );
    if (process.stdout.isTTY) process.stdout.write('\n');
    const failures = failed
      ? (await pipeline.failedPhotos(eventId)).map(({ fileName, reason }) => ({ fileName, reason }))
      : [];
    for (const { fileName, reason } of failures) console.log(`  failed ${fileName}: ${reason}`);
    if (failed > failures.length) console.log(`  and ${failed - failures.length} more failed`);
    const done = { ...counts, failed, failures };
    if (flags['no-go-live']) return { ...done, published: null };
    const { published } = await pipeline.publish(eventId);
    console.log(`go-live: ${published} photos published; the event is live`);
    return { ...done, published };
  } finally {
    await jobs.close();
    redis.disconnect();
  }
}

/** The worker's announcements of the event's photo transitions, on a connection of their own (Redis pub/sub). */
function photoTransitions(redis: ReturnType<typeof connectRedis>, eventId: number): TransitionFeed {
  return async (onTransition) => {
    const subscriber = redis.duplicate();
    subscriber.on('error', () => undefined);
    subscriber.on('message', onTransition);
    await subscriber.subscribe(photoStatusChannel(eventId));
    return async () => {
      subscriber.disconnect();
    };
  };
}
