import { buildFederatedSchema, SubgraphContext } from '@em/subgraph-kit';
import { ContainerType } from 'type-graphql';
import { PhotoCountedEventType } from './event-counts/event-photo-counts.types';
import { DownloadsResolver } from './downloads/downloads.resolver';
import { EventPhotoCountsResolver } from './event-counts/event-photo-counts.resolver';
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
  EventPhotoCountsResolver,
] as const;

/**
 * The images subgraph: photos, gallery, image details, the timeline, original downloads, the photo pipeline,
 * the organiser's photo review and the photo counts of `Event`.
 */
export function buildImagesSchema(container?: ContainerType, photos?: PhotosResolver) {
  return buildFederatedSchema(
    { resolvers: RESOLVERS, container, orphanedTypes: [PhotoCountedEventType] },
    {
      Photo: { __resolveReference: (ref: { id: string }, ctx: SubgraphContext) => photos!.resolveReference(ref, ctx) },
    },
  );
}
