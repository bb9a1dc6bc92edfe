import { OrgEventArgs, PageArgs, PageInfoType, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Args, Ctx, Field, ObjectType, Query, Resolver } from 'type-graphql';
import { PhotoRef } from '../photo-ref';
import { BibSearchService } from './bib-search.service';

@ObjectType('BibSearchResult')
export class BibSearchResultType {
  @Field(() => [PhotoRef]) items!: PhotoRef[];
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
}

@Resolver()
export class BibSearchResolver {
  constructor(private readonly service: BibSearchService) {}

  @Query(() => BibSearchResultType, {
    description: 'Photos showing a BIB number (case-insensitive); needs the bib_search flag.',
  })
  bibSearch(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('bib') bib: string,
    @Args() { page, pageSize }: PageArgs,
  ) {
    return this.service.search(ctx.principal, orgId, eventId, bib, page, pageSize);
  }
}
