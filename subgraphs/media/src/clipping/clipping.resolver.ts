import { FileUpload, GraphQLUpload, OrgEventArgs, readUpload, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Args, Ctx, Directive, Mutation, Query, Resolver } from 'type-graphql';
import { ClippingService } from './clipping.service';
import { CurrentClipStatusType, VideoClippingStartType, VideoClippingType } from './clipping.types';

@Resolver()
export class ClippingResolver {
  constructor(private readonly service: ClippingService) {}

  @Mutation(() => VideoClippingStartType, {
    description:
      'Starts selfie-driven clipping (needs video_search and video_selfie_search): a selfie file, a face search requestId, or both.',
  })
  startVideoClipping(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('file', () => GraphQLUpload, { nullable: true }) file?: Promise<FileUpload> | null,
    @Arg('requestId', () => String, { nullable: true }) requestId?: string | null,
    @Arg('forceRecreate', () => Boolean, {
      nullable: true,
      description: 'Recreate the clips of an existing request (deleted or expired ones).',
    })
    forceRecreate?: boolean | null,
  ) {
    const selfie = file ? async () => (await readUpload(file)).content : null;
    return this.service.start(ctx.principal, orgId, eventId, { selfie, requestId, forceRecreate });
  }

  @Query(() => VideoClippingType, { description: 'A clipping request and its clips; reading never changes it.' })
  videoClipping(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('requestId') requestId: string,
  ) {
    return this.service.read(ctx.principal, orgId, eventId, requestId);
  }

  // Internal: @inaccessible keeps it out of the API, so only the gateway (signing the principal) reaches it.
  @Directive('@inaccessible')
  @Query(() => CurrentClipStatusType, {
    description: "A request's status now, for the gateway's clipStatus subscription (guarded like it).",
  })
  currentClipStatus(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('requestId') requestId: string,
  ) {
    return this.service.currentStatus(ctx.principal, orgId, eventId, requestId);
  }
}
