import 'reflect-metadata';
import { ObjectStore } from '@em/core';
import { resolverContainer, runService, startSubgraphServer } from '@em/subgraph-kit';
import { AccountResolver, AccountService } from './account/account';
import { EventsResolver } from './events/events.resolver';
import { EventsService } from './events/events.service';
import { PingResolver, PingService } from './ping/ping';
import { buildEventsSchema } from './schema';

runService('events', async ({ cfg, logger, orm }) => {
  const store = new ObjectStore(cfg);
  const container = resolverContainer(
    new EventsResolver(new EventsService(orm, store)),
    new PingResolver(new PingService(orm)),
    new AccountResolver(new AccountService(orm)),
  );
  const schema = await buildEventsSchema(container);
  return startSubgraphServer({ name: 'events', schema, port: cfg.EVENTS_PORT, orm, principalSecret: cfg.PRINCIPAL_SECRET, logger });
});
