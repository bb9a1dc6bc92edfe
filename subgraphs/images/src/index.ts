import 'reflect-metadata';
import { ObjectStore } from '@em/core';
import { resolverContainer, runService, startSubgraphServer } from '@em/subgraph-kit';
import { PhotosResolver } from './photos/photos.resolver';
import { PhotosService } from './photos/photos.service';
import { TimelineResolver } from './timeline/timeline.resolver';
import { TimelineService } from './timeline/timeline.service';
import { buildImagesSchema } from './schema';

runService('images', async ({ cfg, logger, orm }) => {
  const store = new ObjectStore(cfg);
  const photos = new PhotosResolver(new PhotosService(orm, store));
  const timeline = new TimelineResolver(new TimelineService(orm, store));
  const schema = await buildImagesSchema(resolverContainer(photos, timeline), photos);
  return startSubgraphServer({ name: 'images', schema, port: cfg.IMAGES_PORT, orm, principalSecret: cfg.PRINCIPAL_SECRET, logger });
});
