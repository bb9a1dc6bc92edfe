import { buildFederatedSchema } from '@em/subgraph-kit';
import { ContainerType } from 'type-graphql';
import { EventsResolver } from './events/events.resolver';
import { PingResolver } from './ping/ping';

export const RESOLVERS = [EventsResolver, PingResolver] as const;

/** The events subgraph: organisations' events, their flags, and ping. */
export function buildEventsSchema(container?: ContainerType) {
  return buildFederatedSchema({ resolvers: RESOLVERS, container });
}
