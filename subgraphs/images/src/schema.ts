import { buildFederatedSchema, SubgraphContext } from '@em/subgraph-kit';
import { ContainerType } from 'type-graphql';
import { DownloadsResolver } from './downloads/downloads.resolver';
import { PhotosResolver } from './photos/photos.resolver';
import { PipelineResolver } from './pipeline/pipeline.resolver';
import { TimelineResolver } from './timeline/timeline.resolver';
import { PhotoReviewResolver } from './review/photo-review.resolver';
import { PhotoUploadsResolver } from './uploads/photo-uploads.resolver';

export const RESOLVERS = [
  PhotosResolver,
  TimelineResolver,
  PipelineResolver,
  DownloadsResolver,
  PhotoReviewResolver,
  PhotoUploadsResolver,
] as const;

/** The images subgraph: photos, gallery, image details, the timeline, original downloads, the photo pipeline and the organiser's photo review. */
export function buildImagesSchema(container?: ContainerType, photos?: PhotosResolver) {
  return buildFederatedSchema(
    { resolvers: RESOLVERS, container },
    {
      Photo: { __resolveReference: (ref: { id: string }, ctx: SubgraphContext) => photos!.resolveReference(ref, ctx) },
    },
  );
}
