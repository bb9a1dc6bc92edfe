import { OrgEventArgs, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Args, Ctx, Int, Mutation, Resolver } from 'type-graphql';
import { CompletedPhotoUploadType, PhotoUploadPartsType, PhotoUploadType } from './photo-uploads.types';
import { PhotoUploadsService } from './photo-uploads.service';

@Resolver()
export class PhotoUploadsResolver {
  constructor(private readonly service: PhotoUploadsService) {}

  @Mutation(() => PhotoUploadType, {
    description: 'Starts a photo upload straight to object storage (refused as importPhotos refuses the file).',
  })
  startPhotoUpload(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('fileName') fileName: string,
    @Arg('size', () => Int) size: number,
    @Arg('contentType') contentType: string,
  ) {
    return this.service.start(ctx.principal, orgId, eventId, { fileName, size, contentType });
  }

  @Mutation(() => PhotoUploadPartsType, {
    description: 'The parts of a multipart upload already stored, and fresh URLs for the rest (to resume it).',
  })
  photoUploadParts(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('key') key: string,
    @Arg('multipartUploadId') multipartUploadId: string,
    @Arg('size', () => Int) size: number,
  ) {
    return this.service.parts(ctx.principal, orgId, eventId, key, multipartUploadId, size);
  }

  @Mutation(() => CompletedPhotoUploadType, {
    description: 'Checks the uploaded file and imports it as a photo, queued for processing. Idempotent.',
  })
  completePhotoUpload(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('key') key: string,
    @Arg('fileName') fileName: string,
    @Arg('multipartUploadId', () => String, { nullable: true }) multipartUploadId?: string | null,
  ) {
    return this.service.complete(ctx.principal, orgId, eventId, key, fileName, multipartUploadId ?? null);
  }

  @Mutation(() => Boolean, { description: 'Gives up an upload: its parts and object are removed.' })
  abortPhotoUpload(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('key') key: string,
    @Arg('multipartUploadId', () => String, { nullable: true }) multipartUploadId?: string | null,
  ) {
    return this.service.abort(ctx.principal, orgId, eventId, key, multipartUploadId ?? null);
  }
}
