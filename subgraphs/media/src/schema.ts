import { buildFederatedSchema } from '@em/subgraph-kit';
import { ContainerType } from 'type-graphql';
import { VideoCountedEventType } from './event-counts/event-video-counts.types';
import { ClippingResolver } from './clipping/clipping.resolver';
import { EventVideoCountsResolver } from './event-counts/event-video-counts.resolver';
import { VideosResolver } from './videos/videos.resolver';

export const RESOLVERS = [VideosResolver, ClippingResolver, EventVideoCountsResolver] as const;

/** The media subgraph: event videos, their face index, clipping requests and clips, the video counts of `Event`. */
export function buildMediaSchema(container?: ContainerType) {
  return buildFederatedSchema({ resolvers: RESOLVERS, container, orphanedTypes: [VideoCountedEventType] });
}
