import { SubgraphContext } from '@em/subgraph-kit';
import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { EventPageType, EventType } from './event.types';
import { EventsService } from './events.service';

@Resolver(() => EventType)
export class EventsResolver {
  constructor(private readonly service: EventsService) {}

  @Query(() => EventPageType, { description: 'Events of the organisation (page size 10 by default, 100 at most).' })
  events(
    @Ctx() ctx: SubgraphContext,
    @Arg('orgId', () => Int) orgId: number,
    @Arg('page', () => Int, { nullable: true }) page?: number,
    @Arg('pageSize', () => Int, { nullable: true }) pageSize?: number,
  ) {
    return this.service.list(ctx.principal, orgId, page, pageSize);
  }

  @Query(() => EventType, { description: 'One event with its feature flags.' })
  event(@Ctx() ctx: SubgraphContext, @Arg('orgId', () => Int) orgId: number, @Arg('eventId', () => Int) eventId: number) {
    return this.service.details(ctx.principal, orgId, eventId);
  }

  /** Events referenced by other subgraphs (`_entities`), checked against the principal's organisations. */
  resolveReference(reference: { id: unknown }, ctx: SubgraphContext) {
    return this.service.byReference(ctx.principal, reference.id);
  }
}
