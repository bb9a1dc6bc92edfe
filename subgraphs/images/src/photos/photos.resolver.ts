import { OrgEventArgs, PageArgs, SubgraphContext } from '@em/subgraph-kit';
import DataLoader from 'dataloader';
import { Arg, Args, Ctx, Query, Resolver } from 'type-graphql';
import { PhotoPageType, PhotoType } from './photo.types';
import { PhotoView } from './photo-view';
import { PhotosService } from './photos.service';

@Resolver(() => PhotoType)
export class PhotosResolver {
  private readonly loaders = new WeakMap<SubgraphContext, DataLoader<string, PhotoView | null>>();

  constructor(private readonly service: PhotosService) {}

  @Query(() => PhotoPageType, {
    description: 'All published photos of the event by capture time (untimed last); page size 32, at most 100.',
  })
  photos(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs, @Args() { page, pageSize }: PageArgs) {
    return this.service.gallery(ctx.principal, orgId, eventId, page, pageSize);
  }

  @Query(() => PhotoType, { description: 'One photo of the event with its metadata.' })
  photo(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs, @Arg('imageId') imageId: string) {
    return this.service.details(ctx.principal, orgId, eventId, imageId);
  }

  /** Photos referenced by other subgraphs (search results), loaded in one batch per request. */
  resolveReference(reference: { id: string }, ctx: SubgraphContext): Promise<PhotoView | null> {
    let loader = this.loaders.get(ctx);
    if (!loader) {
      loader = new DataLoader((ids) => this.service.byIds(ctx.principal, ids));
      this.loaders.set(ctx, loader);
    }
    return loader.load(reference.id);
  }
}
