import { AppError } from '@em/core';
import { FileUpload, GraphQLUpload, OrgEventArgs, saveUpload, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { EventVideoType } from './video.types';
import { VideosService } from './videos.service';

@Resolver()
export class VideosResolver {
  constructor(private readonly service: VideosService) {}

  @Query(() => [EventVideoType], { description: 'Videos of the event and their indexing state.' })
  eventVideos(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs) {
    return this.service.list(ctx.principal, orgId, eventId);
  }

  @Mutation(() => EventVideoType, {
    description: 'Adds a video to the event (organisers); the ml-worker indexes its faces.',
  })
  async addEventVideo(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('file', () => GraphQLUpload, { nullable: true }) file?: Promise<FileUpload> | null,
    @Arg('sourceKey', () => String, {
      nullable: true,
      description: 'Names the source in clips (source_video_key); default: the file name.',
    })
    sourceKey?: string | null,
  ) {
    // The caller is checked before the file is read or written anywhere.
    const event = await this.service.guardAdd(ctx.principal, orgId, eventId);
    if (!file) throw new AppError('BAD_REQUEST', 'A video file is required (multipart field "file")');
    const saved = await saveUpload(file);
    try {
      return await this.service.addToEvent(event, saved.path, saved.fileName, sourceKey, ctx.principal.requestId);
    } finally {
      await saved.remove();
    }
  }
}
