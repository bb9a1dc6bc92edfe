import { AppError } from '@em/core';
import {
  FileUpload,
  GraphQLUpload,
  OrgArgs,
  OrgEventArgs,
  PageArgs,
  readUpload,
  SubgraphContext,
} from '@em/subgraph-kit';
import { Arg, Args, Ctx, Directive, GraphQLISODateTime, Int, Mutation, Query, Resolver } from 'type-graphql';
import { FaceSearchPage, FaceSearchService } from './face-search.service';
import { FaceSearchResultType, FaceSearchUsageType } from './face-search.types';

const asResult = (page: FaceSearchPage): FaceSearchResultType => ({
  ...page,
  items: page.items.map((m) => ({ photo: { id: m.photoId }, similarity: m.confidence })),
});

@Resolver()
export class FaceSearchResolver {
  constructor(private readonly service: FaceSearchService) {}

  @Mutation(() => FaceSearchResultType, {
    description:
      'Selfie search (needs selfie_search). A requestId that already has a result returns it without matching again (not billed).',
  })
  async searchFaces(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('file', () => GraphQLUpload, {
      nullable: true,
      description: 'The selfie: JPEG or PNG (WebP, HEIF also work).',
    })
    file: Promise<FileUpload> | null | undefined,
    @Arg('requestId', () => String, { nullable: true }) requestId: string | null | undefined,
    @Args() { page, pageSize }: PageArgs,
  ) {
    const selfie = async () => {
      if (!file) throw new AppError('BAD_REQUEST', 'A selfie file is required (multipart field "file")');
      return (await readUpload(file)).content;
    };
    return asResult(await this.service.search(ctx.principal, orgId, eventId, selfie, requestId, page, pageSize));
  }

  @Query(() => FaceSearchResultType, { description: 'A stored selfie search by requestId; never matches again.' })
  async faceSearch(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('requestId') requestId: string,
    @Args() { page, pageSize }: PageArgs,
  ) {
    return asResult(await this.service.cached(ctx.principal, orgId, eventId, requestId, page, pageSize));
  }

  @Query(() => FaceSearchUsageType, {
    description: 'Billable face searches of the organisation (optionally one event, a window [from, to)).',
  })
  faceSearchUsage(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId }: OrgArgs,
    @Arg('eventId', () => Int, { nullable: true }) eventId?: number | null,
    @Arg('from', () => GraphQLISODateTime, { nullable: true }) from?: Date | null,
    @Arg('to', () => GraphQLISODateTime, { nullable: true }) to?: Date | null,
  ) {
    return this.service.usage(ctx.principal, orgId, from, to, eventId);
  }

  // Internal: @inaccessible keeps it out of the API, so only the gateway (signing the principal) reaches it.
  @Directive('@inaccessible')
  @Query(() => Boolean, {
    description:
      "The gateway's check before charging a searchFaces call: a stored request_id of the caller's organisation.",
  })
  storedFaceSearch(
    @Ctx() ctx: SubgraphContext,
    @Arg('eventId', () => Int) eventId: number,
    @Arg('requestId') requestId: string,
  ) {
    return this.service.isStoredForCaller(ctx.principal, eventId, requestId);
  }
}
