import 'reflect-metadata';
import { resolverContainer, runService, startSubgraphServer } from '@em/subgraph-kit';
import { BibSearchResolver } from './bibs/bib-search.resolver';
import { BibSearchService } from './bibs/bib-search.service';
import { buildSearchSchema } from './schema';

runService('search', async ({ cfg, logger, orm }) => {
  const schema = await buildSearchSchema(resolverContainer(new BibSearchResolver(new BibSearchService(orm))));
  return startSubgraphServer({ name: 'search', schema, port: cfg.SEARCH_PORT, orm, principalSecret: cfg.PRINCIPAL_SECRET, logger });
});
