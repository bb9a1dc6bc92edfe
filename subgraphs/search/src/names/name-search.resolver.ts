import { OrgEventArgs, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Args, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { NameSearchService } from './name-search.service';

@ObjectType('NameSearchMatch', {
  description:
    'A participant of the start list whose name matches, with their bib and how many published photos show it.',
})
export class NameSearchMatchType {
  @Field() bib!: string;
  @Field() name!: string;
  @Field(() => Int) photoCount!: number;
}

@Resolver()
export class NameSearchResolver {
  constructor(private readonly service: NameSearchService) {}

  @Query(() => [NameSearchMatchType], {
    description:
      "Participants of the event's start list by name: accent- and case-insensitive, word prefixes, small typos; best first, at most 20. " +
      'Needs the name_search flag (FORBIDDEN when off); at least 2 letters.',
  })
  searchByName(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs, @Arg('query') query: string) {
    return this.service.search(ctx.principal, orgId, eventId, query);
  }
}
