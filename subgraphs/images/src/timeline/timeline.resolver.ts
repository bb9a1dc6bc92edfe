import { OrgEventArgs, PageArgs, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Args, Ctx, Float, Query, Resolver } from 'type-graphql';
import { PhotoPageType } from '../photos/photo.types';
import { TimelineDayType } from './timeline.types';
import { TimelineService } from './timeline.service';

@Resolver()
export class TimelineResolver {
  constructor(private readonly service: TimelineService) {}

  @Query(() => [TimelineDayType], { description: 'Photo counts per UTC day and hour; untimed photos are excluded.' })
  timelineDays(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs) {
    return this.service.days(ctx.principal, orgId, eventId);
  }

  @Query(() => PhotoPageType, {
    description: 'Photos captured in [from, to) (Unix epoch seconds), ascending by capture time.',
  })
  timelinePhotos(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('from', () => Float, { nullable: true }) from: number | undefined,
    @Arg('to', () => Float, { nullable: true }) to: number | undefined,
    @Args() { page, pageSize }: PageArgs,
  ) {
    return this.service.window(ctx.principal, orgId, eventId, from, to, page, pageSize);
  }
}
