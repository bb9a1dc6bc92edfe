import { FileUpload, GraphQLUpload, OrgEventArgs, readUpload, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { GoLiveReportType, ImportReportType, PipelineStatusType, ProcessReportType } from './pipeline.types';
import { PipelineService } from './pipeline.service';

@Resolver()
export class PipelineResolver {
  constructor(private readonly service: PipelineService) {}

  @Query(() => PipelineStatusType, { description: 'The photo pipeline of an event (organisers).' })
  pipelineStatus(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs) {
    return this.service.status(ctx.principal, orgId, eventId);
  }

  @Mutation(() => ImportReportType, {
    description:
      "Imports uploaded files, or else the photos in the event's inbox (inbox/<eventId>/ in the bucket, all or the given keys).",
  })
  async importPhotos(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('keys', () => [String], { nullable: true }) keys?: string[],
    @Arg('files', () => [GraphQLUpload], { nullable: true }) files?: Array<Promise<FileUpload>>,
    @Arg('photographerName', () => String, { nullable: true }) photographerName?: string,
  ) {
    const report = files?.length
      ? await this.service.importUploads(
          ctx.principal,
          orgId,
          eventId,
          files.map((f) => () => readUpload(f)),
          photographerName ?? null,
        )
      : await this.service.importInbox(ctx.principal, orgId, eventId, keys);
    return {
      ...report,
      files: report.files.map((f) => ({
        key: f.key,
        status: f.outcome.status,
        imageId: 'imageId' in f.outcome ? f.outcome.imageId : null,
        reason: 'reason' in f.outcome ? f.outcome.reason : null,
      })),
    };
  }

  @Mutation(() => ProcessReportType, {
    description: 'Queues imported photos (and failed ones with retryFailed) for processing.',
  })
  processPhotos(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('retryFailed', { nullable: true }) retryFailed?: boolean,
  ) {
    return this.service.process(ctx.principal, orgId, eventId, retryFailed ?? false);
  }

  @Mutation(() => ProcessReportType, {
    description: 'Queues one failed photo for processing again (organisers; a photo not failed: CONFLICT).',
  })
  retryPhoto(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs, @Arg('imageId') imageId: string) {
    return this.service.retryPhoto(ctx.principal, orgId, eventId, imageId);
  }

  @Mutation(() => GoLiveReportType, {
    description: 'Publishes processed photos; later ones are published as they finish.',
  })
  async goLive(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs) {
    const { published, wentLiveAt } = await this.service.goLive(ctx.principal, orgId, eventId);
    return { published, isLive: true, wentLiveAt };
  }
}
