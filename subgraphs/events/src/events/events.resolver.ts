import { OrgArgs, OrgEventArgs, PageArgs, SubgraphContext } from '@em/subgraph-kit';
import { Args, Ctx, Query, Resolver } from 'type-graphql';
import { EventPageType, EventType } from './event.types';
import { EventsService } from './events.service';

@Resolver(() => EventType)
export class EventsResolver {
  constructor(private readonly service: EventsService) {}

  @Query(() => EventPageType, { description: 'Events of the organisation (page size 10 by default, 100 at most).' })
  events(@Ctx() ctx: SubgraphContext, @Args() { orgId }: OrgArgs, @Args() { page, pageSize }: PageArgs) {
    return this.service.list(ctx.principal, orgId, page, pageSize);
  }

  @Query(() => EventType, { description: 'One event with its feature flags.' })
  event(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs) {
    return this.service.details(ctx.principal, orgId, eventId);
  }

  /** Events referenced by other subgraphs (`_entities`), checked against the principal's organisations. */
  resolveReference(reference: { id: unknown }, ctx: SubgraphContext) {
    return this.service.byReference(ctx.principal, reference.id);
  }
}
