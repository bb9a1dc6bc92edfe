import { buildFederatedSchema } from '@em/subgraph-kit';
import { ContainerType } from 'type-graphql';
import { PhotosResolver } from './photos/photos.resolver';
import { TimelineResolver } from './timeline/timeline.resolver';

export const RESOLVERS = [PhotosResolver, TimelineResolver] as const;

/** The images subgraph: photos, gallery, image details and the timeline. */
export function buildImagesSchema(container?: ContainerType, photos?: PhotosResolver) {
  return buildFederatedSchema(
    { resolvers: RESOLVERS, container },
    { Photo: { __resolveReference: (ref: { id: string }, ctx: any) => photos!.resolveReference(ref, ctx) } },
  );
}
