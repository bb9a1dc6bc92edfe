import { buildFederatedSchema } from '@em/subgraph-kit';
import { ContainerType } from 'type-graphql';
import { AccountResolver } from './account/account.resolver';
import { ApiKeysResolver } from './api-keys/api-keys.resolver';
import { AuthorizeResolver } from './authorize/authorize.resolver';
import { EventsResolver } from './events/events.resolver';
import { PingResolver } from './ping/ping.resolver';

export const RESOLVERS = [EventsResolver, PingResolver, AccountResolver, ApiKeysResolver, AuthorizeResolver] as const;

/** The events subgraph: organisations' events, their flags, ping, the signed-in account and API key management and `authorize`. */
export function buildEventsSchema(container?: ContainerType, events?: EventsResolver) {
  return buildFederatedSchema(
    { resolvers: RESOLVERS, container },
    { Event: { __resolveReference: (ref: { id: unknown }, ctx: any) => events!.resolveReference(ref, ctx) } },
  );
}
