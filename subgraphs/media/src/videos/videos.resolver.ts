import { SubgraphContext } from '@em/subgraph-kit';
import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { EventVideoType } from './video.types';
import { VideosService } from './videos.service';

@Resolver()
export class VideosResolver {
  constructor(private readonly service: VideosService) {}

  @Query(() => [EventVideoType], { description: 'Videos of the event and their indexing state.' })
  eventVideos(@Ctx() ctx: SubgraphContext, @Arg('orgId', () => Int) orgId: number, @Arg('eventId', () => Int) eventId: number) {
    return this.service.list(ctx.principal, orgId, eventId);
  }
}
