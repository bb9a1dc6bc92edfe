import 'reflect-metadata';
import { checks, connectRedis, ContentVersions, photoStatusPublisher } from '@em/core';
import {
  SqlAuditLogRepository,
  SqlEventsRepository,
  SqlFaceSearchesRepository,
  SqlPhotosRepository,
} from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { JobQueues } from '@em/core/jobs';
import { resolverContainer, runService, startSubgraphServer } from '@em/subgraph-kit';
import { DownloadsResolver } from './downloads/downloads.resolver';
import { DownloadsService } from './downloads/downloads.service';
import { EventPhotoCountsResolver } from './event-counts/event-photo-counts.resolver';
import { EventPhotoCountsService } from './event-counts/event-photo-counts.service';
import { PhotosResolver } from './photos/photos.resolver';
import { PhotosService } from './photos/photos.service';
import { PipelineResolver } from './pipeline/pipeline.resolver';
import { PipelineService } from './pipeline/pipeline.service';
import { PhotoReviewResolver } from './review/photo-review.resolver';
import { PhotoReviewService } from './review/photo-review.service';
import { TimelineResolver } from './timeline/timeline.resolver';
import { TimelineService } from './timeline/timeline.service';
import { PhotoUploadsResolver } from './uploads/photo-uploads.resolver';
import { PhotoUploadsService } from './uploads/photo-uploads.service';
import { buildImagesSchema } from './schema';

runService('images', async ({ cfg, logger, orm, principalSecret }) => {
  const store = new ObjectStore(cfg);
  const jobs = new JobQueues(cfg.REDIS_URL);
  const events = new SqlEventsRepository(orm);
  const photoRows = new SqlPhotosRepository(orm);
  const photos = new PhotosResolver(new PhotosService(events, photoRows, store));
  const timeline = new TimelineResolver(new TimelineService(events, photoRows, store));
  const redis = connectRedis(cfg.REDIS_URL);
  const versions = new ContentVersions(events, redis, logger);
  const pipelineService = new PipelineService(events, photoRows, store, jobs, versions, photoStatusPublisher(redis));
  const pipeline = new PipelineResolver(pipelineService);
  const uploads = new PhotoUploadsResolver(
    new PhotoUploadsService(events, photoRows, store, pipelineService, {
      maxFileBytes: cfg.UPLOAD_MAX_FILE_BYTES,
      multipartThresholdBytes: cfg.UPLOAD_MULTIPART_THRESHOLD_BYTES,
      partBytes: cfg.UPLOAD_PART_BYTES,
      urlTtlSeconds: cfg.UPLOAD_URL_TTL_SECONDS,
    }),
  );
  const downloads = new DownloadsResolver(
    new DownloadsService(events, photoRows, new SqlFaceSearchesRepository(orm), store),
  );
  const review = new PhotoReviewResolver(
    new PhotoReviewService(events, photoRows, store, versions, new SqlAuditLogRepository(orm)),
  );
  const counts = new EventPhotoCountsResolver(new EventPhotoCountsService(events, photoRows));
  const schema = await buildImagesSchema(
    resolverContainer(photos, timeline, pipeline, downloads, review, uploads, counts),
    photos,
  );
  const server = await startSubgraphServer({
    name: 'images',
    schema,
    port: cfg.IMAGES_PORT,
    orm,
    principalSecret,
    host: cfg.LISTEN_HOST,
    logger,
    checks: [checks.s3(store)],
  });
  return {
    async stop() {
      await server.stop();
      await jobs.close();
    },
  };
});
