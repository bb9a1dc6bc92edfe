import type { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { AppError } from '../errors';
import { CORRUPT_IMAGE, probeImage } from '../imaging/formats';
import { openImage } from '../imaging/pixel-limit';
import { JobQueues, JOBS, loadBullmq } from '../jobs';
import { connectRedis } from '../redis';
import { SelfieDescriptors } from './embedding';
import { SelfieImages } from './selfie-images';
import { RecentSelfieTime, selfieQueueVerdict } from './selfie-queue-wait';

/** Selfie formats accepted: what phones and browsers send. */
const SELFIE_FORMATS = new Set(['jpeg', 'png', 'webp', 'heif']);
/** Selfies are downscaled before they travel: faces in selfies are large, and Redis carries the bytes. */
const SELFIE_MAX_SIDE = 1280;
const NOT_EMBEDDED = 'Face matching did not answer in time, so nothing was recorded; retry with the same request_id';
/** While no worker serves the selfie queue (the ml-worker loading its models): 503, retry after this. */
const STARTING_RETRY_SECONDS = 10;
/** The workers counted serving the queue are trusted this long before the queue's clients are listed again. */
const WORKERS_COUNTED_MS = 2000;

export interface SelfieEmbedding {
  /** The selfie's largest face's descriptors, one per family (null without a face). */
  descriptors: SelfieDescriptors | null;
  facesFound: number;
  /** Where the round trip went (ms): to the worker (enqueue + queue hop), in the worker (model included), back (reply hop). */
  timing?: SelfieRoundTrip;
}

export interface SelfieRoundTrip {
  queueMs: number;
  workerMs: number;
  modelMs: number;
  replyMs: number;
}

export interface SelfieLimits {
  maxBytes: number;
  timeoutSeconds: number;
}

/**
 * The face-search side of selfie embedding: checks the file, downscales it and asks the ml-worker
 * for the descriptor of its largest face (BullMQ request/reply), waiting at most the timeout.
 */
export class SelfieEmbedder {
  private readonly jobs: JobQueues;
  private readonly events: QueueEvents;
  private readonly connection: Redis;
  private readonly images: SelfieImages;
  private readonly recent: RecentSelfieTime;
  private workersCounted = { count: 0, until: 0 };

  constructor(
    redisUrl: string,
    private readonly limits: SelfieLimits,
  ) {
    this.jobs = new JobQueues(redisUrl);
    this.images = new SelfieImages(this.jobs.redis);
    this.recent = new RecentSelfieTime(this.jobs.redis);
    // BullMQ does not close a connection it was given: close() does, or it reconnects forever once Redis is gone.
    this.connection = connectRedis(redisUrl);
    this.events = new (loadBullmq().QueueEvents)(JOBS.selfies.queue, { connection: this.connection });
  }

  /** The cheap checks, before anything else: 400 when the file is empty, 413 above the size limit. */
  checkSize(file: Buffer): void {
    if (file.length === 0) throw new AppError('BAD_REQUEST', 'The selfie file is empty');
    if (file.length > this.limits.maxBytes) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `The selfie is larger than ${Math.round(this.limits.maxBytes / 1024 / 1024)} MB`,
      );
    }
  }

  /**
   * Checks a selfie file (400 when it is not a photo or a truncated one, 413 over the pixel limit) and
   * downscales it for the trip to the worker. The header is probed without a decode: the downscale is
   * the one decode, strict about truncated data (a phone photo's extra decode cost ~20 ms of CPU).
   */
  async prepare(file: Buffer): Promise<Buffer> {
    this.checkSize(file);
    const probe = await probeImage(file, { decode: false });
    if (!probe.ok)
      throw new AppError(
        probe.tooLarge ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST',
        `The selfie is not usable: ${probe.reason}`,
      );
    if (!SELFIE_FORMATS.has(probe.format))
      throw new AppError(
        'BAD_REQUEST',
        `The selfie must be a JPEG or PNG photo (WebP and HEIF also work), not ${probe.format}`,
      );
    try {
      return await openImage(file, { failOn: 'truncated' })
        .rotate()
        .resize(SELFIE_MAX_SIDE, SELFIE_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
        // Default Huffman tables: the same pixels for the worker, a second coding pass less for a file that only travels.
        .jpeg({ quality: 92, optimiseCoding: false })
        .toBuffer();
    } catch {
      throw new AppError('BAD_REQUEST', `The selfie is not usable: ${CORRUPT_IMAGE}`);
    }
  }

  /**
   * UNAVAILABLE (503 with Retry-After) at once when a new selfie cannot be embedded in time: no worker
   * serves the queue yet (the ml-worker loading its models), or the selfies queued ahead would keep it
   * waiting past the timeout (a surge). Callers ask before they decode the selfie; embed() asks itself
   * unless told `admitted`. Nothing is queued or recorded, so a retry with the same request_id works.
   */
  async admit(): Promise<void> {
    const workers = await this.servingWorkers();
    if (workers === 0)
      throw new AppError('UNAVAILABLE', `Face matching is starting up; retry in ${STARTING_RETRY_SECONDS} s`, {
        retryAfterSeconds: STARTING_RETRY_SECONDS,
      });
    // A Redis that cannot count the queue admits the selfie: the timeout still applies.
    const counts = await this.jobs
      .queue('selfies')
      .getJobCounts('waiting', 'paused', 'prioritized', 'active')
      .catch(() => null);
    if (!counts) return;
    const verdict = selfieQueueVerdict(
      {
        waiting: counts.waiting + counts.paused + counts.prioritized,
        active: counts.active,
        workers,
        msPerSelfie: await this.recent.msPerSelfie(),
      },
      this.limits.timeoutSeconds * 1000,
    );
    if (!verdict.admitted)
      throw new AppError(
        'UNAVAILABLE',
        `Face matching is busy: the selfies queued ahead need about ${Math.ceil(verdict.waitMs / 1000)} s; ` +
          `retry in ${verdict.retryAfterSeconds} s`,
        { retryAfterSeconds: verdict.retryAfterSeconds },
      );
  }

  /**
   * The descriptor of the selfie's largest face (null when it shows none). When no worker answers in
   * time: NOT_RECORDED (500), since callers record a search or clipping request only after this, so
   * nothing is kept and a retry with the same request_id starts afresh.
   */
  async embed(prepared: Buffer, opts: { boxDescriptor?: boolean; admitted?: boolean } = {}): Promise<SelfieEmbedding> {
    if (!opts.admitted) await this.admit();
    const timeoutMs = this.limits.timeoutSeconds * 1000;
    let jobId: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AppError('NOT_RECORDED', NOT_EMBEDDED)), timeoutMs);
    });
    const sentAt = Date.now();
    let imageKey: string | undefined;
    const run = (async () => {
      await this.events.waitUntilReady();
      // Kept a little past the wait: a job taken at the last moment still finds its image.
      imageKey = await this.images.put(prepared, timeoutMs + 10_000);
      const job = (await this.jobs.enqueue('selfies', { imageKey, boxDescriptor: opts.boxDescriptor !== false }))!;
      jobId = job.id;
      return job.waitUntilFinished(this.events, timeoutMs);
    })();
    try {
      const result = await Promise.race([run, deadline]);
      const t = result.timing;
      if (t) this.recent.observe(t.modelMs);
      const timing = t && {
        queueMs: t.startedAt - sentAt,
        workerMs: t.finishedAt - t.startedAt,
        modelMs: t.modelMs,
        replyMs: Date.now() - t.finishedAt,
      };
      return { descriptors: selfieDescriptorsOf(result), facesFound: result.facesFound, ...(timing ? { timing } : {}) };
    } catch (err) {
      // A selfie nobody embedded in time is withdrawn, so a late worker does not spend time on it.
      if (jobId)
        void this.jobs
          .queue('selfies')
          .remove(jobId)
          .catch(() => undefined);
      if (err instanceof AppError) throw err;
      throw new AppError('NOT_RECORDED', NOT_EMBEDDED);
    } finally {
      clearTimeout(timer);
      run.catch(() => undefined);
      if (imageKey) void this.images.remove(imageKey).catch(() => undefined);
    }
  }

  /**
   * The workers serving the selfie queue (BullMQ lists its clients), counted again at most every 2 s
   * while some serve. A Redis that cannot list its clients counts as one (the timeout still applies).
   */
  private async servingWorkers(): Promise<number> {
    if (Date.now() < this.workersCounted.until) return this.workersCounted.count;
    const count = await this.jobs
      .queue('selfies')
      .getWorkersCount()
      .catch(() => 1);
    this.workersCounted = { count, until: count > 0 ? Date.now() + WORKERS_COUNTED_MS : 0 };
    return count;
  }

  async close(): Promise<void> {
    await this.events.close();
    await this.jobs.close();
    this.connection.disconnect();
  }
}

/**
 * A worker's reply as descriptors by family. A reply without `boxDescriptor` came from a worker of
 * before version 4 (a rolling upgrade): its `descriptor` is of the box family.
 */
export function selfieDescriptorsOf(result: {
  descriptor: number[] | null;
  boxDescriptor?: number[] | null;
}): SelfieDescriptors | null {
  if (!result.descriptor) return null;
  if (result.boxDescriptor === undefined) return { chip: null, box: Float32Array.from(result.descriptor) };
  return {
    chip: Float32Array.from(result.descriptor),
    box: result.boxDescriptor ? Float32Array.from(result.boxDescriptor) : null,
  };
}
