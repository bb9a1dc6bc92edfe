import { buildFederatedSchema } from '@em/subgraph-kit';
import { ContainerType } from 'type-graphql';
import { AccountResolver } from './account/account.resolver';
import { EventsResolver } from './events/events.resolver';
import { PingResolver } from './ping/ping.resolver';

export const RESOLVERS = [EventsResolver, PingResolver, AccountResolver] as const;

/** The events subgraph: organisations' events, their flags, ping, and the signed-in account. */
export function buildEventsSchema(container?: ContainerType) {
  return buildFederatedSchema({ resolvers: RESOLVERS, container });
}
