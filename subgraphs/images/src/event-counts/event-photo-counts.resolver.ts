import { SubgraphContext } from '@em/subgraph-kit';
import DataLoader from 'dataloader';
import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { EventPhotoCountsType, PhotoCountedEventType } from './event-photo-counts.types';
import { EventPhotoCountsService, PhotoCounts } from './event-photo-counts.service';

/** `Event.photoCounts`: every event of a request's page in one batch (one guard lookup, one count query). */
@Resolver(() => PhotoCountedEventType)
export class EventPhotoCountsResolver {
  private readonly loaders = new WeakMap<SubgraphContext, DataLoader<number, PhotoCounts>>();

  constructor(private readonly service: EventPhotoCountsService) {}

  @FieldResolver(() => EventPhotoCountsType, {
    nullable: true,
    description: "The event's photo counts (organisers: allowed as pipelineStatus is; null with an error otherwise).",
  })
  photoCounts(@Root() event: { id: number }, @Ctx() ctx: SubgraphContext): Promise<PhotoCounts> {
    let loader = this.loaders.get(ctx);
    if (!loader) {
      loader = new DataLoader<number, PhotoCounts>((ids) => this.service.countsOf(ctx.principal, ids));
      this.loaders.set(ctx, loader);
    }
    return loader.load(Number(event.id));
  }
}
