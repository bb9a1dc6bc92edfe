import { SubgraphContext } from '@em/subgraph-kit';
import { Arg, Ctx, Float, Int, Query, Resolver } from 'type-graphql';
import { PhotoPageType } from '../photos/photo.types';
import { TimelineDayType } from './timeline.types';
import { TimelineService } from './timeline.service';

@Resolver()
export class TimelineResolver {
  constructor(private readonly service: TimelineService) {}

  @Query(() => [TimelineDayType], { description: 'Photo counts per UTC day and hour; untimed photos are excluded.' })
  timelineDays(@Ctx() ctx: SubgraphContext, @Arg('orgId', () => Int) orgId: number, @Arg('eventId', () => Int) eventId: number) {
    return this.service.days(ctx.principal, orgId, eventId);
  }

  @Query(() => PhotoPageType, { description: 'Photos captured in [from, to) (Unix epoch seconds), ascending by capture time.' })
  timelinePhotos(
    @Ctx() ctx: SubgraphContext,
    @Arg('orgId', () => Int) orgId: number,
    @Arg('eventId', () => Int) eventId: number,
    @Arg('from', () => Float, { nullable: true }) from?: number,
    @Arg('to', () => Float, { nullable: true }) to?: number,
    @Arg('page', () => Int, { nullable: true }) page?: number,
    @Arg('pageSize', () => Int, { nullable: true }) pageSize?: number,
  ) {
    return this.service.window(ctx.principal, orgId, eventId, from, to, page, pageSize);
  }
}
