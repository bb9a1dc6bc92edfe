import { SubgraphContext } from '@em/subgraph-kit';
import DataLoader from 'dataloader';
import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { EventVideoCountsType, VideoCountedEventType } from './event-video-counts.types';
import { EventVideoCountsService, VideoCounts } from './event-video-counts.service';

/** `Event.videoCounts`: every event of a request's page in one batch (one guard lookup, one count query). */
@Resolver(() => VideoCountedEventType)
export class EventVideoCountsResolver {
  private readonly loaders = new WeakMap<SubgraphContext, DataLoader<number, VideoCounts>>();

  constructor(private readonly service: EventVideoCountsService) {}

  @FieldResolver(() => EventVideoCountsType, {
    nullable: true,
    description: "The event's video counts (organisers: allowed as eventVideos is; null with an error otherwise).",
  })
  videoCounts(@Root() event: { id: number }, @Ctx() ctx: SubgraphContext): Promise<VideoCounts> {
    let loader = this.loaders.get(ctx);
    if (!loader) {
      loader = new DataLoader<number, VideoCounts>((ids) => this.service.countsOf(ctx.principal, ids));
      this.loaders.set(ctx, loader);
    }
    return loader.load(Number(event.id));
  }
}
