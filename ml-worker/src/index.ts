import 'reflect-metadata';
import {
  checks,
  clientMessage,
  config,
  connectRedis,
  createLogger,
  CutClipsJob,
  EmbedSelfieJob,
  EmbedSelfieResult,
  FaceIndexRevisions,
  IndexVideoJob,
  JOBS,
  ObjectStore,
  openDatabase,
  ProcessPhotoJob,
  QUEUES,
  ServiceMetrics,
  TracedJob,
} from '@em/core';
import { Job, Queue, Worker } from 'bullmq';
import { BibReader } from './bibs/bib-reader';
import { ClipRetention } from './clips/clip-retention';
import { ClipCutter } from './clips/cut-clips';
import { embedSelfie } from './faces/embed-selfie';
import { FaceAnalyzer } from './faces/face-analyzer';
import { serveOperatorEndpoints } from './operator-endpoints';
import { PhotoProcessor } from './photos/process-photo';
import { VideoIndexer } from './videos/index-video';

const logger = createLogger('ml-worker');

/** After a job's last attempt, its thing is marked failed with the reason. */
const isLastAttempt = (job: Job | undefined) => !!job && job.attemptsMade >= (job.opts.attempts ?? 1);
/** What a client may read of a job's failure: our own UnrecoverableError reasons and AppErrors; anything else is in the log only. */
const reasonOf = (err: Error, fallback: string) => (err.name === 'UnrecoverableError' ? err.message : clientMessage(err, fallback));

/** The ML worker: BullMQ processors only, no HTTP. */
async function main() {
  const cfg = config();
  const orm = await openDatabase(cfg);
  const store = new ObjectStore(cfg);
  const redis = connectRedis(cfg.REDIS_URL);
  const revisions = new FaceIndexRevisions(redis);
  const faces = new FaceAnalyzer();
  const bibs = new BibReader();
  await Promise.all([faces.load(), bibs.load()]);
  const photos = new PhotoProcessor(orm, store, faces, bibs, revisions, logger);
  const videos = new VideoIndexer(orm, store, faces, revisions, logger);
  const clips = new ClipCutter(orm, store, redis, logger);
  const retention = new ClipRetention(orm, store, logger);
  const connection = () => connectRedis(cfg.REDIS_URL);

  const workers = [
    new Worker<ProcessPhotoJob>(QUEUES.photos, async (job) => photos.process(job.data.photoId), { connection: connection(), concurrency: 2 }).on('failed', (job, err) => {
      if (isLastAttempt(job) || err.name === 'UnrecoverableError') void photos.markFailed(job!.data.photoId, reasonOf(err, 'The photo could not be processed (see the worker log)')).catch(() => undefined);
    }),
    new Worker<EmbedSelfieJob, EmbedSelfieResult>(QUEUES.selfies, async (job) => embedSelfie(faces, job.data), { connection: connection(), concurrency: 4 }),
    new Worker<IndexVideoJob>(QUEUES.videos, async (job) => videos.index(job.data.videoId), { connection: connection(), concurrency: 1, lockDuration: 120_000 }).on('failed', (job, err) => {
      if (isLastAttempt(job) || err.name === 'UnrecoverableError') void videos.fail(job!.data.videoId, reasonOf(err, 'The video could not be indexed (see the worker log)')).catch(() => undefined);
    }),
    new Worker(QUEUES.clipRetention, async () => retention.sweep(), { connection: connection(), concurrency: 1 }),
    new Worker<CutClipsJob>(QUEUES.clips, async (job) => clips.run(job.data.eventId, job.data.requestId, job.data.generation), { connection: connection(), concurrency: 1, lockDuration: 120_000 }).on('failed', (job, err) => {
      if (isLastAttempt(job)) void clips.markFailed(job!.data.eventId, job!.data.requestId, job!.data.generation, clientMessage(err, 'Clip generation failed')).catch(() => undefined);
    }),
  ];
  const requestIdOf = (job: Job | undefined) => (job?.data as TracedJob | undefined)?.httpRequestId;
  for (const worker of workers as Worker[]) {
    worker.on('active', (job) => logger.debug({ queue: worker.name, jobId: job.id, requestId: requestIdOf(job) }, 'job started'));
    worker.on('completed', (job) => logger.info({ queue: worker.name, jobId: job.id, requestId: requestIdOf(job), ms: (job.finishedOn ?? 0) - (job.processedOn ?? 0) }, 'job done'));
    worker.on('failed', (job, err) => logger.warn({ queue: worker.name, jobId: job?.id, requestId: requestIdOf(job), attempts: job?.attemptsMade, err: err.message }, 'job failed'));
    worker.on('error', (err) => logger.error({ queue: worker.name, err: err.message }, 'worker error'));
  }
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  const queues = workers.map((w) => new Queue(w.name, { connection: redis }));
  await ClipRetention.schedule(queues.find((q) => q.name === QUEUES.clipRetention)!, cfg.CLIP_RETENTION_SWEEP_SECONDS);
  const operator = serveOperatorEndpoints({
    port: cfg.ML_WORKER_PORT,
    host: cfg.LISTEN_HOST,
    metrics: new ServiceMetrics('ml-worker'),
    checks: [checks.postgres(orm), checks.redis(redis), checks.s3(store)],
    workers,
    queues,
  });
  logger.info({ queues: workers.map((w) => w.name), port: cfg.ML_WORKER_PORT }, 'ml-worker ready');

  const shutdown = async () => {
    operator.close();
    await Promise.all(workers.map((w) => w.close()));
    await Promise.all(queues.map((q) => q.close()));
    redis.disconnect();
    await orm.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
}

main().catch((err) => {
  logger.fatal({ err }, 'failed to start');
  process.exit(1);
});
