import { OrgEventArgs, SubgraphContext } from '@em/subgraph-kit';
import DataLoader from 'dataloader';
import { Arg, Args, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ReviewBibRow, ReviewFaceRow } from '@em/core/data';
import { PhotoType } from '../photos/photo.types';
import { PhotoView } from '../photos/photo-view';
import { PhotoReviewService } from './photo-review.service';
import { DeletedPhotoType, PhotoBibType, PhotoFaceType, ReviewQueuePageType } from './photo-review.types';

interface Loaders {
  bibs: DataLoader<string, ReviewBibRow[]>;
  faces: DataLoader<string, ReviewFaceRow[]>;
  /** The guard's answer per event, once per request. */
  guards: Map<number, Promise<void>>;
}

const byPhoto = <T extends { photoId: string }>(ids: readonly string[], rows: T[]) =>
  ids.map((id) => rows.filter((r) => r.photoId === id));

/** The organiser's photo review: the review fields of `Photo` and the review's queries and mutations (organisers only). */
@Resolver(() => PhotoType)
export class PhotoReviewResolver {
  private readonly loaders = new WeakMap<SubgraphContext, Loaders>();

  constructor(private readonly service: PhotoReviewService) {}

  private loadersOf(ctx: SubgraphContext): Loaders {
    let loaders = this.loaders.get(ctx);
    if (!loaders) {
      loaders = {
        bibs: new DataLoader(async (ids) => byPhoto(ids, await this.service.bibsOf(ids))),
        faces: new DataLoader(async (ids) => byPhoto(ids, await this.service.facesOf(ids))),
        guards: new Map(),
      };
      this.loaders.set(ctx, loaders);
    }
    return loaders;
  }

  private guardFields(ctx: SubgraphContext, photo: PhotoView): Promise<void> {
    const { guards } = this.loadersOf(ctx);
    let guard = guards.get(photo.eventId);
    if (!guard) guards.set(photo.eventId, (guard = this.service.guardPhotoFields(ctx.principal, photo.eventId)));
    return guard;
  }

  @FieldResolver(() => [PhotoBibType], {
    description: "The photo's bib numbers with their source and status (organisers only: never a key).",
  })
  async bibs(@Root() photo: PhotoView, @Ctx() ctx: SubgraphContext) {
    await this.guardFields(ctx, photo);
    const rows = await this.loadersOf(ctx).bibs.load(photo.id);
    return rows.map((r) => ({
      number: r.bib,
      readText: r.readText,
      box: r.box,
      confidence: r.confidence,
      source: r.source,
      status: r.status,
    }));
  }

  @FieldResolver(() => [PhotoFaceType], {
    description: 'The faces found on the photo, box and quality (organisers only: never a key).',
  })
  async faces(@Root() photo: PhotoView, @Ctx() ctx: SubgraphContext) {
    await this.guardFields(ctx, photo);
    return (await this.loadersOf(ctx).faces.load(photo.id)).map((f) => ({ box: f.box, quality: f.quality }));
  }

  @FieldResolver(() => Boolean, {
    description: 'Hidden by the organiser: absent from every participant answer (organisers only).',
  })
  async hidden(@Root() photo: PhotoView, @Ctx() ctx: SubgraphContext) {
    await this.guardFields(ctx, photo);
    return photo.hidden ?? this.service.hiddenOf(photo.id, photo.eventId);
  }

  @Query(() => PhotoType, {
    description: 'Any photo of the event, hidden or not yet published, for review (organisers only).',
  })
  reviewPhoto(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs, @Arg('imageId') imageId: string) {
    return this.service.photo(ctx.principal, orgId, eventId, imageId);
  }

  @Query(() => ReviewQueuePageType, {
    description:
      'Processed photos to review: no bib, a rejected read or a completed one (organisers only); first: 1-100, default 20.',
  })
  reviewQueue(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
  ) {
    return this.service.queue(ctx.principal, orgId, eventId, first, after);
  }

  @Mutation(() => PhotoType, {
    description: 'The organiser puts a bib on the photo: participants find it by that number (organisers only).',
  })
  addPhotoBib(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('imageId') imageId: string,
    @Arg('bib') bib: string,
  ) {
    return this.service.addBib(ctx.principal, orgId, eventId, imageId, bib);
  }

  @Mutation(() => PhotoType, {
    description: 'The organiser takes a bib off the photo, whatever read it (organisers only).',
  })
  removePhotoBib(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('imageId') imageId: string,
    @Arg('bib') bib: string,
  ) {
    return this.service.removeBib(ctx.principal, orgId, eventId, imageId, bib);
  }

  @Mutation(() => PhotoType, {
    description: 'Hides the photo from every participant answer at once (organisers only).',
  })
  hidePhoto(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs, @Arg('imageId') imageId: string) {
    return this.service.hide(ctx.principal, orgId, eventId, imageId);
  }

  @Mutation(() => PhotoType, {
    description: 'Shows a hidden photo again (published at once when the event is live; organisers only).',
  })
  unhidePhoto(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs, @Arg('imageId') imageId: string) {
    return this.service.unhide(ctx.principal, orgId, eventId, imageId);
  }

  @Mutation(() => DeletedPhotoType, {
    description: 'Deletes the photo: original, previews, bibs and faces (organisers only).',
  })
  deletePhoto(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs, @Arg('imageId') imageId: string) {
    return this.service.delete(ctx.principal, orgId, eventId, imageId);
  }
}
