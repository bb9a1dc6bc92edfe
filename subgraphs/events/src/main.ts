import 'reflect-metadata';
import { keyInvalidationNotifier } from '@em/core';
import { ApiKeyService } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { resolverContainer, runService, startSubgraphServer } from '@em/subgraph-kit';
import { AccountResolver } from './account/account.resolver';
import { AccountService } from './account/account.service';
import { AuthorizeResolver } from './authorize/authorize.resolver';
import { ApiKeysResolver } from './api-keys/api-keys.resolver';
import { ApiKeysService } from './api-keys/api-keys.service';
import { EventsResolver } from './events/events.resolver';
import { EventsService } from './events/events.service';
import { PingResolver } from './ping/ping.resolver';
import { PingService } from './ping/ping.service';
import { buildEventsSchema } from './schema';

runService('events', async ({ cfg, logger, orm, principalSecret }) => {
  const store = new ObjectStore(cfg);
  const events = new EventsResolver(new EventsService(orm, store));
  const keyChanges = keyInvalidationNotifier(cfg.REDIS_URL, (err) => logger.warn({ err: (err as Error).message }, 'could not announce an API key change'));
  const container = resolverContainer(
    events,
    new PingResolver(new PingService(orm)),
    new AccountResolver(new AccountService(orm)),
    new ApiKeysResolver(new ApiKeysService(orm, new ApiKeyService(cfg.MAX_API_KEYS_PER_ORG, (keyId) => keyChanges.keyChanged(keyId)))),
    new AuthorizeResolver(orm),
  );
  const schema = await buildEventsSchema(container, events);
  return startSubgraphServer({ name: 'events', schema, port: cfg.EVENTS_PORT, orm, principalSecret, host: cfg.LISTEN_HOST, logger });
});
