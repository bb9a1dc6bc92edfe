import { buildFederatedSchema, SubgraphContext } from '@em/subgraph-kit';
import { ContainerType } from 'type-graphql';
import { AccountResolver } from './account/account.resolver';
import { ApiKeysResolver } from './api-keys/api-keys.resolver';
import { AuthorizeResolver } from './authorize/authorize.resolver';
import { EventsResolver } from './events/events.resolver';
import { PingResolver } from './ping/ping.resolver';
import { OrganisationsResolver } from './organisations/organisations.resolver';
import { EventAdminResolver } from './events/event-admin.resolver';
import { MembersResolver } from './members/members.resolver';
import { StartListResolver } from './start-list/start-list.resolver';
import { UsageResolver } from './usage/usage.resolver';
import { AuditLogResolver } from './audit/audit-log.resolver';

export const RESOLVERS = [
  EventsResolver,
  PingResolver,
  AccountResolver,
  ApiKeysResolver,
  AuthorizeResolver,
  OrganisationsResolver,
  EventAdminResolver,
  MembersResolver,
  UsageResolver,
  StartListResolver,
  AuditLogResolver,
] as const;

/** The events subgraph: organisations, their events and settings, members, usage, API keys, ping, the signed-in account and `authorize`. */
export function buildEventsSchema(container?: ContainerType, events?: EventsResolver) {
  return buildFederatedSchema(
    { resolvers: RESOLVERS, container },
    {
      Event: { __resolveReference: (ref: { id: unknown }, ctx: SubgraphContext) => events!.resolveReference(ref, ctx) },
    },
  );
}
