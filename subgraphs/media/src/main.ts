import 'reflect-metadata';
import { checks, connectRedis, videoStatusPublisher } from '@em/core';
import {
  SqlClipRequestsRepository,
  SqlEventsRepository,
  SqlFaceSearchesRepository,
  SqlVideosRepository,
} from '@em/core/data';
import { FaceIndexCache } from '@em/core/face-index';
import { ObjectStore } from '@em/core/storage';
import { JobQueues } from '@em/core/jobs';
import { FaceIndexRevisions, SelfieEmbedder } from '@em/core/media';
import { resolverContainer, runService, ServiceRuntime, startSubgraphServer } from '@em/subgraph-kit';
import { ClippingResolver } from './clipping/clipping.resolver';
import { ClippingService } from './clipping/clipping.service';
import { EventVideoCountsResolver } from './event-counts/event-video-counts.resolver';
import { EventVideoCountsService } from './event-counts/event-video-counts.service';
import { VideosResolver } from './videos/videos.resolver';
import { VideosService } from './videos/videos.service';
import { buildMediaSchema } from './schema';

type Redis = ReturnType<typeof connectRedis>;

runService('media', async ({ cfg, logger, orm, principalSecret }) => {
  const redis = connectRedis(cfg.REDIS_URL);
  const store = new ObjectStore(cfg);
  const jobs = new JobQueues(cfg.REDIS_URL);
  const embedder = new SelfieEmbedder(cfg.REDIS_URL, {
    maxBytes: cfg.SELFIE_MAX_BYTES,
    timeoutSeconds: cfg.SELFIE_EMBED_TIMEOUT_SECONDS,
  });
  const resolvers = mediaResolvers({ cfg, logger, orm, principalSecret }, { redis, store, jobs, embedder });
  const server = await startSubgraphServer({
    name: 'media',
    schema: await buildMediaSchema(resolvers),
    port: cfg.MEDIA_PORT,
    orm,
    principalSecret,
    host: cfg.LISTEN_HOST,
    logger,
    checks: [checks.redis(redis), checks.s3(store)],
  });
  return {
    async stop() {
      await server.stop();
      await Promise.all([embedder.close(), jobs.close()]);
      redis.disconnect();
    },
  };
});

/** Videos and clipping over their repositories, the video face index, the object store and the queues. */
function mediaResolvers(
  { cfg, logger, orm }: ServiceRuntime,
  parts: { redis: Redis; store: ObjectStore; jobs: JobQueues; embedder: SelfieEmbedder },
) {
  const { redis, store, jobs, embedder } = parts;
  const events = new SqlEventsRepository(orm);
  const videos = new SqlVideosRepository(orm);
  const videoFaces = new FaceIndexCache(
    'videos',
    videos,
    new FaceIndexRevisions(redis),
    logger,
    cfg.FACE_INDEX_MAX_FACES,
  );
  const clipping = new ClippingService(
    events,
    new SqlClipRequestsRepository(orm),
    new SqlFaceSearchesRepository(orm),
    videos,
    store,
    embedder,
    videoFaces,
    jobs,
    redis,
  );
  return resolverContainer(
    new VideosResolver(new VideosService(events, videos, store, jobs, videoStatusPublisher(redis))),
    new ClippingResolver(clipping),
    new EventVideoCountsResolver(new EventVideoCountsService(events, videos)),
  );
}
