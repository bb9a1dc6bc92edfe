import { SubgraphContext } from '@em/subgraph-kit';
import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
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
    @Arg('orgId', () => Int) orgId: number,
    @Arg('eventId', () => Int) eventId: number,
    @Arg('method', () => String, { nullable: true }) method?: string | null,
    @Arg('identifier', () => GraphQLJSON, { nullable: true }) identifier?: unknown,
    @Arg('page', () => Int, { nullable: true }) page?: number,
    @Arg('pageSize', () => Int, { nullable: true }) pageSize?: number,
  ) {
    return this.service.originals(ctx.principal, orgId, eventId, method, identifier, page, pageSize);
  }
}
