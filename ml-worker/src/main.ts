import 'reflect-metadata';
import {
  checks,
  config,
  Config,
  connectRedis,
  ContentVersions,
  createLogger,
  defaultSelfieThreads,
  photoStatusPublisher,
  videoStatusPublisher,
  ServiceMetrics,
  thisMachine,
  stopOnSignals,
} from '@em/core';
import {
  openDatabase,
  Orm,
  SqlClipRequestsRepository,
  SqlEventsRepository,
  SqlStartListRepository,
  SqlPhotosRepository,
  SqlUsageRepository,
  SqlVideosRepository,
} from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { JobQueues, QUEUE_NAMES, queueReembedding } from '@em/core/jobs';
import { FaceIndexRevisions, SelfieImages } from '@em/core/media';
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
import { Gauge } from 'prom-client';

const logger = createLogger('ml-worker');

type Redis = ReturnType<typeof connectRedis>;

/** The ML worker: a BullMQ worker per queue of core's job registry, plus HTTP for metrics and health. */
async function main() {
  const cfg = config();
  const orm = await openDatabase(cfg);
  const store = new ObjectStore(cfg);
  const redis = connectRedis(cfg.REDIS_URL);
  const jobs = new JobQueues(cfg.REDIS_URL);
  const metrics = new ServiceMetrics('ml-worker');
  // The operator port opens before the models load (tens of seconds): the worker is live at once,
  // and ready (`models` ok) only once its queues are served.
  const readiness = { modelsLoaded: false };
  const operator = openOperatorPort(cfg, { orm, redis, store, jobs, metrics, readiness });
  const faces = new FaceAnalyzer();
  const selfies = selfieServing(cfg, faces, new SelfieImages(redis));
  const selfiesStarted = selfies.threads.start();
  // Then this thread, and every thread it starts from now on (OCR, video parts), may run photo and
  // video work at a lower priority than the selfie threads started above (ML_BACKGROUND_NICE, off by default).
  const backgroundNice = lowerThreadPriority(cfg.ML_BACKGROUND_NICE);
  // PHOTO_CONCURRENCY photos at once, each with its own OCR thread (even one: the thread's person
  // detector has its own tfjs, which the face models' must not share while both initialise).
  const bibs = new BibReaderPool(cfg.PHOTO_CONCURRENCY);
  await Promise.all([faces.load(), bibs.load(), selfiesStarted]);
  const rows = { photos: new SqlPhotosRepository(orm), videos: new SqlVideosRepository(orm) };
  const handlers = jobHandlers(cfg, orm, rows, { store, redis, faces, bibs, metrics });
  const workers = await serveQueues(cfg, handlers, selfies);
  operator.observe(workers);
  await jobs.scheduleRepeatingJobs(cfg);
  describeOlderFacesAgain(rows, jobs);
  readiness.modelsLoaded = true;
  const selfieThreads = showSelfieThreads(cfg, selfies.threads.running, metrics);
  logger.info(
    { queues: workers.map((w) => w.name), port: cfg.ML_WORKER_PORT, selfieThreads, backgroundNice },
    'ml-worker ready',
  );
  stopOnSignals(logger, async () => {
    operator.server.close();
    await Promise.all(workers.map((w) => w.close()));
    await selfies.threads.close();
    await bibs.close();
    await jobs.close();
    redis.disconnect();
    await orm.close();
  });
}

/**
 * How many selfie threads run and why (the default's rule on this machine, or SELFIE_THREADS): for the start's
 * log line, and as `em_selfie_threads{rule}` on /metrics.
 */
function showSelfieThreads(cfg: Config, running: number, metrics: ServiceMetrics) {
  const machine = thisMachine();
  const byDefault = defaultSelfieThreads(machine);
  const rule = cfg.SELFIE_THREADS === byDefault.threads ? byDefault.rule : 'SELFIE_THREADS';
  new Gauge({
    name: 'em_selfie_threads',
    help: 'Selfie threads serving the selfie queue, by the rule that chose their number',
    labelNames: ['rule'],
    registers: [metrics.registry],
  }).set({ rule }, running);
  const freeGb = Math.round((machine.freeBytes / 1024 ** 3) * 10) / 10;
  return { running, configured: cfg.SELFIE_THREADS, rule, cores: machine.cores, freeGb };
}

/** `/metrics` and `/health/*` on the operator port; `models` is ready once the queues are served. */
function openOperatorPort(
  cfg: Config,
  parts: {
    orm: Orm;
    redis: Redis;
    store: ObjectStore;
    jobs: JobQueues;
    metrics: ServiceMetrics;
    readiness: { modelsLoaded: boolean };
  },
) {
  const { orm, redis, store, jobs, metrics, readiness } = parts;
  return serveOperatorEndpoints({
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
          if (!readiness.modelsLoaded) throw new Error('loading');
        },
      },
    ],
    queues: QUEUE_NAMES.map((name) => jobs.queue(name)),
  });
}

/**
 * Selfies are embedded on their own threads with their own models, each taking selfie jobs from
 * Redis itself: they never wait behind a photo, nor for this thread. When the last thread is lost,
 * this thread serves the selfie queue (its analyzer puts selfies ahead of photo work).
 */
function selfieServing(cfg: Config, faces: FaceAnalyzer, images: SelfieImages) {
  const workers: Worker[] = [];
  let selfiesHere = false;
  const serveHere = () => {
    if (selfiesHere) return;
    selfiesHere = true;
    workers.push(
      startWorker('selfies', { run: (job) => embedSelfie(faces, job, images) }, connectRedis(cfg.REDIS_URL), logger),
    );
  };
  const threads = SelfieThreads.servingQueue(faces, logger, cfg.SELFIE_THREADS, { redisUrl: cfg.REDIS_URL }, serveHere);
  return { workers, serveHere, threads };
}

/** A worker per queue (the selfie queue here only while no selfie thread serves it), once all are ready. */
async function serveQueues(cfg: Config, handlers: JobHandlers, selfies: ReturnType<typeof selfieServing>) {
  const { workers } = selfies;
  const redis = () => connectRedis(cfg.REDIS_URL);
  workers.push(...startWorkers(handlers, redis, logger, { photos: cfg.PHOTO_CONCURRENCY }, ['selfies']));
  if (!selfies.threads.running) selfies.serveHere();
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  return workers;
}

/** What each queue's jobs run, and what a job's last failure records. */
function jobHandlers(
  cfg: Config,
  orm: Orm,
  rows: { photos: SqlPhotosRepository; videos: SqlVideosRepository },
  parts: { store: ObjectStore; redis: Redis; faces: FaceAnalyzer; bibs: BibReaderPool; metrics: ServiceMetrics },
): JobHandlers {
  const { store, redis, faces, bibs, metrics } = parts;
  const revisions = new FaceIndexRevisions(redis);
  const clipRequests = new SqlClipRequestsRepository(orm);
  const eventRows = new SqlEventsRepository(orm);
  const versions = new ContentVersions(eventRows, redis, logger);
  const photos = new PhotoProcessor(
    rows.photos,
    eventRows,
    store,
    faces,
    bibs,
    revisions,
    logger,
    new SqlStartListRepository(orm),
    versions,
    photoStepHistogram(metrics.registry),
    photoStatusPublisher(redis),
  );
  const videos = new VideoIndexer(
    rows.videos,
    store,
    faces,
    revisions,
    logger,
    () => VideoPartThread.start(logger),
    cfg.VIDEO_INDEX_PARTS,
    videoStatusPublisher(redis),
  );
  const clips = new ClipCutter(clipRequests, rows.videos, store, redis, logger);
  const retention = new ClipRetention(clipRequests, store, logger);
  const deleter = new EventDeleter(
    new SqlEventsRepository(orm),
    new SqlUsageRepository(() => orm.em.fork()),
    store,
    logger,
  );
  return {
    photos: {
      run: (job) => photos.process(job.photoId),
      onFinalFailure: {
        fallback: 'The photo could not be processed (see the worker log)',
        record: (job, reason) => photos.markFailed(job.photoId, reason),
      },
    },
    // Served by the selfie threads (serveHere when none runs).
    selfies: { run: (job) => embedSelfie(faces, job, new SelfieImages(redis)) },
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
}

/**
 * Faces described by an older descriptor version (an upgrade) are described again, in the
 * background: idempotent, so every start (of every worker) may run it; see queueReembedding.
 */
function describeOlderFacesAgain(rows: { photos: SqlPhotosRepository; videos: SqlVideosRepository }, jobs: JobQueues) {
  void queueReembedding(rows, jobs).then(
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
}

main().catch((err) => {
  logger.fatal({ err }, 'failed to start');
  process.exit(1);
});
