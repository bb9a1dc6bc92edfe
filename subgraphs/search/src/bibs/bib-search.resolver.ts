import { PageInfoType, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
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

  @Query(() => BibSearchResultType, { description: 'Photos showing a BIB number (case-insensitive); needs the bib_search flag.' })
  bibSearch(
    @Ctx() ctx: SubgraphContext,
    @Arg('orgId', () => Int) orgId: number,
    @Arg('eventId', () => Int) eventId: number,
    @Arg('bib') bib: string,
    @Arg('page', () => Int, { nullable: true }) page?: number,
    @Arg('pageSize', () => Int, { nullable: true }) pageSize?: number,
  ) {
    return this.service.search(ctx.principal, orgId, eventId, bib, page, pageSize);
  }
}
