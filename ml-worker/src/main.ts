import 'reflect-metadata';
import { checks, config, connectRedis, ContentVersions, createLogger, ServiceMetrics } from '@em/core';
import {
  openDatabase,
  SqlClipRequestsRepository,
  SqlEventsRepository,
  SqlStartListRepository,
  SqlPhotosRepository,
  SqlUsageRepository,
  SqlVideosRepository,
} from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { JobQueues, QUEUE_NAMES, queueReembedding } from '@em/core/jobs';
import { FaceIndexRevisions } from '@em/core/media';
import { BibReaderPool } from './bibs/bib-reader-pool';
import { ClipRetention } from './clips/clip-retention';
import { ClipCutter } from './clips/cut-clips';
import { embedSelfie } from './faces/embed-selfie';
import { EventDeleter } from './events/delete-event';
import { SelfieThreads } from './faces/selfie-thread';
import { lowerThreadPriority } from './faces/background-priority';
import { FaceAnalyzer } from './faces/face-analyzer';
import { serveOperatorEndpoints } from './operator-endpoints';
import { PhotoProcessor } from './photos/process-photo';
import { photoStepHistogram } from './photos/photo-steps';
import { VideoIndexer } from './videos/index-video';
import { VideoPartThread } from './videos/video-thread';
import { JobHandlers, startWorker, startWorkers } from './workers';
import type { Worker } from 'bullmq';

const logger = createLogger('ml-worker');

/** The ML worker: a BullMQ worker per queue of core's job registry, plus HTTP for metrics and health. */
async function main() {
  const cfg = config();
  const orm = await openDatabase(cfg);
  const store = new ObjectStore(cfg);
  const redis = connectRedis(cfg.REDIS_URL);
  const revisions = new FaceIndexRevisions(redis);
  const jobs = new JobQueues(cfg.REDIS_URL);
  // The operator port opens before the models load (tens of seconds): the worker is live at once,
  // and ready (`models` ok) only once its queues are served.
  let modelsLoaded = false;
  const metrics = new ServiceMetrics('ml-worker');
  const operator = serveOperatorEndpoints({
    port: cfg.ML_WORKER_PORT,
    host: cfg.LISTEN_HOST,
    metrics,
    checks: [
      checks.postgres(orm),
      checks.redis(redis),
      checks.s3(store),
      {
        name: 'models',
        check: async () => {
          if (!modelsLoaded) throw new Error('loading');
        },
      },
    ],
    queues: QUEUE_NAMES.map((name) => jobs.queue(name)),
  });
  const faces = new FaceAnalyzer();
  // Selfies are embedded on their own threads with their own models, each taking selfie jobs from
  // Redis itself: they never wait behind a photo, nor for this thread. When the last thread is lost,
  // this thread serves the selfie queue (its analyzer puts selfies ahead of photo work).
  const workers: Worker[] = [];
  let selfiesHere = false;
  const serveSelfiesHere = () => {
    if (selfiesHere) return;
    selfiesHere = true;
    workers.push(
      startWorker('selfies', { run: (job) => embedSelfie(faces, job) }, connectRedis(cfg.REDIS_URL), logger),
    );
  };
  const selfies = SelfieThreads.servingQueue(
    faces,
    logger,
    cfg.SELFIE_THREADS,
    { redisUrl: cfg.REDIS_URL },
    serveSelfiesHere,
  );
  const selfiesStarted = selfies.start();
  // Then this thread, and every thread it starts from now on (OCR, video parts), may run photo and
  // video work at a lower priority than the selfie threads started above (ML_BACKGROUND_NICE, off by default).
  const backgroundNice = lowerThreadPriority(cfg.ML_BACKGROUND_NICE);
  // PHOTO_CONCURRENCY photos at once, each with its own OCR thread (even one: the thread's person
  // detector has its own tfjs, which the face models' must not share while both initialise).
  const bibs = new BibReaderPool(cfg.PHOTO_CONCURRENCY);
  await Promise.all([faces.load(), bibs.load(), selfiesStarted]);
  const videoRows = new SqlVideosRepository(orm);
  const photoRows = new SqlPhotosRepository(orm);
  const clipRequests = new SqlClipRequestsRepository(orm);
  const eventRows = new SqlEventsRepository(orm);
  const startLists = new SqlStartListRepository(orm);
  const versions = new ContentVersions(eventRows, redis, logger);
  const photos = new PhotoProcessor(
    photoRows,
    eventRows,
    store,
    faces,
    bibs,
    revisions,
    logger,
    startLists,
    versions,
    photoStepHistogram(metrics.registry),
  );
  const videos = new VideoIndexer(
    videoRows,
    store,
    faces,
    revisions,
    logger,
    () => VideoPartThread.start(logger),
    cfg.VIDEO_INDEX_PARTS,
  );
  const clips = new ClipCutter(clipRequests, videoRows, store, redis, logger);
  const retention = new ClipRetention(clipRequests, store, logger);
  const deleter = new EventDeleter(
    new SqlEventsRepository(orm),
    new SqlUsageRepository(() => orm.em.fork()),
    store,
    logger,
  );

  const handlers: JobHandlers = {
    photos: {
      run: (job) => photos.process(job.photoId),
      onFinalFailure: {
        fallback: 'The photo could not be processed (see the worker log)',
        record: (job, reason) => photos.markFailed(job.photoId, reason),
      },
    },
    // Served by the selfie threads (serveSelfiesHere when none runs).
    selfies: { run: (job) => embedSelfie(faces, job) },
    videos: {
      run: (job) => videos.index(job.videoId),
      onFinalFailure: {
        fallback: 'The video could not be indexed (see the worker log)',
        record: (job, reason) => videos.fail(job.videoId, reason),
      },
    },
    clips: {
      run: (job) => clips.run(job.eventId, job.requestId, job.generation),
      onFinalFailure: {
        fallback: 'Clip generation failed',
        record: (job, reason) => clips.markFailed(job.eventId, job.requestId, job.generation, reason),
      },
    },
    clipRetention: { run: () => retention.sweep() },
    eventDeletion: { run: (job, progress) => deleter.run(job, progress) },
  };
  workers.push(
    ...startWorkers(handlers, () => connectRedis(cfg.REDIS_URL), logger, { photos: cfg.PHOTO_CONCURRENCY }, [
      'selfies',
    ]),
  );
  if (!selfies.running) serveSelfiesHere();
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  operator.observe(workers);
  await jobs.scheduleRepeatingJobs(cfg);
  // Faces described by an older descriptor version (an upgrade) are described again, in the
  // background: idempotent, so every start (of every worker) may run it; see queueReembedding.
  void queueReembedding({ photos: photoRows, videos: videoRows }, jobs).then(
    (queued) =>
      queued.events
        ? logger.info(queued, 'faces of an older descriptor version queued to be described again')
        : undefined,
    (err: Error) =>
      logger.warn(
        { err: err.message },
        'queueing faces of an older descriptor version failed; the next start tries again',
      ),
  );
  modelsLoaded = true;
  logger.info(
    { queues: workers.map((w) => w.name), port: cfg.ML_WORKER_PORT, selfieThreads: selfies.running, backgroundNice },
    'ml-worker ready',
  );

  const shutdown = async () => {
    operator.server.close();
    await Promise.all(workers.map((w) => w.close()));
    await selfies.close();
    if (bibs instanceof BibReaderPool) await bibs.close();
    await jobs.close();
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
