import 'reflect-metadata';
import { resolverContainer, runService, startSubgraphServer } from '@em/subgraph-kit';
import { VideosResolver } from './videos/videos.resolver';
import { VideosService } from './videos/videos.service';
import { buildMediaSchema } from './schema';

runService('media', async ({ cfg, logger, orm }) => {
  const schema = await buildMediaSchema(resolverContainer(new VideosResolver(new VideosService(orm))));
  return startSubgraphServer({ name: 'media', schema, port: cfg.MEDIA_PORT, orm, principalSecret: cfg.PRINCIPAL_SECRET, logger });
});
