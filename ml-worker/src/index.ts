import 'reflect-metadata';
import { config, connectRedis, createLogger, EmbedSelfieJob, EmbedSelfieResult, FaceIndexRevisions, JOBS, ObjectStore, openDatabase, ProcessPhotoJob, QUEUES } from '@em/core';
import { Worker } from 'bullmq';
import { BibReader } from './bibs/bib-reader';
import { embedSelfie } from './faces/embed-selfie';
import { FaceAnalyzer } from './faces/face-analyzer';
import { PhotoProcessor } from './photos/process-photo';

const logger = createLogger('ml-worker');

/** The ML worker: BullMQ processors only, no HTTP. */
async function main() {
  const cfg = config();
  const orm = await openDatabase(cfg);
  const store = new ObjectStore(cfg);
  const faces = new FaceAnalyzer();
  const bibs = new BibReader();
  await Promise.all([faces.load(), bibs.load()]);
  const redis = connectRedis(cfg.REDIS_URL);
  const photos = new PhotoProcessor(orm, store, faces, bibs, new FaceIndexRevisions(redis), logger);

  const photoWorker = new Worker<ProcessPhotoJob>(
    QUEUES.photos,
    async (job) => {
      if (job.name !== JOBS.processPhoto) throw new Error(`Unknown job ${job.name}`);
      return photos.process(job.data.photoId);
    },
    { connection: connectRedis(cfg.REDIS_URL), concurrency: 2 },
  );
  photoWorker.on('failed', (job, err) => {
    logger.warn({ jobId: job?.id, attempts: job?.attemptsMade, err: err.message }, 'job failed');
    if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) void photos.markFailed(job.data.photoId, err.message).catch(() => undefined);
  });
  photoWorker.on('error', (err) => logger.error({ err: err.message }, 'worker error'));

  const selfieWorker = new Worker<EmbedSelfieJob, EmbedSelfieResult>(
    QUEUES.selfies,
    async (job) => {
      if (job.name !== JOBS.embedSelfie) throw new Error(`Unknown job ${job.name}`);
      return embedSelfie(faces, job.data);
    },
    { connection: connectRedis(cfg.REDIS_URL), concurrency: 4 },
  );
  selfieWorker.on('error', (err) => logger.error({ err: err.message }, 'selfie worker error'));

  await Promise.all([photoWorker.waitUntilReady(), selfieWorker.waitUntilReady()]);
  logger.info({ queues: [QUEUES.photos, QUEUES.selfies] }, 'ml-worker ready');

  const shutdown = async () => {
    await Promise.all([photoWorker.close(), selfieWorker.close()]);
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
