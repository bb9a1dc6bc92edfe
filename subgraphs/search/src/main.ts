import 'reflect-metadata';
import { checks, connectRedis } from '@em/core';
import {
  SqlEventsRepository,
  SqlFaceSearchesRepository,
  SqlPhotosRepository,
  SqlStartListRepository,
} from '@em/core/data';
import { FaceIndexCache } from '@em/core/face-index';
import { FaceIndexRevisions, SelfieEmbedder } from '@em/core/media';
import { resolverContainer, runService, ServiceRuntime, startSubgraphServer } from '@em/subgraph-kit';
import { BibSearchResolver } from './bibs/bib-search.resolver';
import { BibSearchService } from './bibs/bib-search.service';
import { FaceSearchResolver } from './faces/face-search.resolver';
import { FaceSearchService } from './faces/face-search.service';
import { NameSearchResolver } from './names/name-search.resolver';
import { NameSearchService } from './names/name-search.service';
import { buildSearchSchema } from './schema';

type Redis = ReturnType<typeof connectRedis>;

runService('search', async ({ cfg, logger, orm, principalSecret }) => {
  const redis = connectRedis(cfg.REDIS_URL);
  const embedder = new SelfieEmbedder(cfg.REDIS_URL, {
    maxBytes: cfg.SELFIE_MAX_BYTES,
    timeoutSeconds: cfg.SELFIE_EMBED_TIMEOUT_SECONDS,
  });
  const resolvers = searchResolvers({ cfg, logger, orm, principalSecret }, redis, embedder);
  const server = await startSubgraphServer({
    name: 'search',
    schema: await buildSearchSchema(resolvers),
    port: cfg.SEARCH_PORT,
    orm,
    principalSecret,
    host: cfg.LISTEN_HOST,
    logger,
    uploadMaxFileBytes: cfg.SELFIE_MAX_BYTES + 1,
    uploadMaxFiles: 1,
    checks: [checks.redis(redis)],
  });
  return {
    async stop() {
      await server.stop();
      await embedder.close();
      redis.disconnect();
    },
  };
});

/** BIB, face and name search over their repositories and the photo face index. */
function searchResolvers({ cfg, logger, orm }: ServiceRuntime, redis: Redis, embedder: SelfieEmbedder) {
  const events = new SqlEventsRepository(orm);
  const photos = new SqlPhotosRepository(orm);
  const faceIndex = new FaceIndexCache(
    'photos',
    photos,
    new FaceIndexRevisions(redis),
    logger,
    cfg.FACE_INDEX_MAX_FACES,
  );
  const faceSearches = new SqlFaceSearchesRepository(orm);
  const maxPhotos = cfg.FACE_SEARCH_MAX_PHOTOS;
  return resolverContainer(
    new BibSearchResolver(new BibSearchService(events, photos)),
    new FaceSearchResolver(new FaceSearchService(events, photos, faceSearches, embedder, faceIndex, maxPhotos, logger)),
    new NameSearchResolver(new NameSearchService(events, new SqlStartListRepository(orm))),
  );
}
