import 'reflect-metadata';
import { connectRedis, invitationsMailed, keyInvalidationNotifier } from '@em/core';
import { ObjectStore } from '@em/core/storage';
import { JobQueues } from '@em/core/jobs';
import { resolverContainer, runService, startSubgraphServer } from '@em/subgraph-kit';
import { AccountResolver } from './account/account.resolver';
import { administrationServices } from './administration';
import { ApiKeysResolver } from './api-keys/api-keys.resolver';
import { AuthorizeResolver } from './authorize/authorize.resolver';
import { EventAdminResolver } from './events/event-admin.resolver';
import { EventsResolver } from './events/events.resolver';
import { MembersResolver } from './members/members.resolver';
import { OrganisationsResolver } from './organisations/organisations.resolver';
import { PingResolver } from './ping/ping.resolver';
import { PingService } from './ping/ping.service';
import { StartListResolver } from './start-list/start-list.resolver';
import { UsageResolver } from './usage/usage.resolver';
import { AuditLogResolver } from './audit/audit-log.resolver';
import { buildEventsSchema } from './schema';

runService('events', async ({ cfg, logger, orm, principalSecret }) => {
  const keyChanges = keyInvalidationNotifier(cfg.REDIS_URL, (err) =>
    logger.warn({ err: (err as Error).message }, 'could not announce an API key change'),
  );
  const jobs = new JobQueues(cfg.REDIS_URL);
  const services = administrationServices({
    em: () => orm.em, // the request's own context (startSubgraphServer opens one per operation)
    store: new ObjectStore(cfg),
    jobs: () => jobs,
    maxApiKeysPerOrganisation: cfg.MAX_API_KEYS_PER_ORG,
    redis: connectRedis(cfg.REDIS_URL),
    onKeyChanged: (keyId) => keyChanges.keyChanged(keyId),
    mailInvitations: invitationsMailed(cfg),
  });
  const events = new EventsResolver(services.events);
  const container = resolverContainer(
    events,
    new PingResolver(new PingService(services.repos.events)),
    new AccountResolver(services.account),
    new ApiKeysResolver(services.apiKeys),
    new AuthorizeResolver(services.repos.events),
    new OrganisationsResolver(services.organisations),
    new EventAdminResolver(services.eventAdmin, services.covers),
    new MembersResolver(services.members),
    new UsageResolver(services.usage),
    new StartListResolver(services.startLists),
    new AuditLogResolver(services.auditLog),
  );
  const schema = await buildEventsSchema(container, events);
  return startSubgraphServer({
    name: 'events',
    schema,
    port: cfg.EVENTS_PORT,
    orm,
    principalSecret,
    host: cfg.LISTEN_HOST,
    logger,
  });
});
