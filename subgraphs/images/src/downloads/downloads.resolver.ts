import { OrgEventArgs, PageArgs, SubgraphContext } from '@em/subgraph-kit';
import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Args, Ctx, Query, Resolver } from 'type-graphql';
import { DownloadsService } from './downloads.service';
import { OriginalDownloadsType } from './downloads.types';

@Resolver()
export class DownloadsResolver {
  constructor(private readonly service: DownloadsService) {}

  @Query(() => OriginalDownloadsType, {
    description:
      'Presigned links to original photos. method: bib | selfie | image_id (identifier: a string) or image_ids (identifier: a list of strings).',
  })
  originalDownloads(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('method', () => String, { nullable: true }) method: string | null | undefined,
    @Arg('identifier', () => GraphQLJSON, { nullable: true }) identifier: unknown,
    @Args() { page, pageSize }: PageArgs,
  ) {
    return this.service.originals(ctx.principal, orgId, eventId, method, identifier, page, pageSize);
  }
}
