import { buildFederatedSchema } from '@em/subgraph-kit';
import { ContainerType } from 'type-graphql';
import { ClippingResolver } from './clipping/clipping.resolver';
import { VideosResolver } from './videos/videos.resolver';

export const RESOLVERS = [VideosResolver, ClippingResolver] as const;

/** The media subgraph: event videos, their face index, clipping requests and clips. */
export function buildMediaSchema(container?: ContainerType) {
  return buildFederatedSchema({ resolvers: RESOLVERS, container });
}
