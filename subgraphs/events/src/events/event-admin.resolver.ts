import { FileUpload, GraphQLUpload, OrgArgs, OrgEventArgs, readUpload, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { EventAdminService } from './event-admin.service';
import { COVER_MAX_BYTES, EventCoverService } from './event-cover.service';
import { EventDeletionType, EventInputType } from './event-input.types';
import { EventType } from './event.types';

@Resolver()
export class EventAdminResolver {
  constructor(
    private readonly service: EventAdminService,
    private readonly covers: EventCoverService,
  ) {}

  @Mutation(() => EventType, {
    description:
      'Creates an event of the organisation (its admins). Every setting is validated (BAD_USER_INPUT with the field).',
  })
  createEvent(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId }: OrgArgs,
    @Arg('input', () => EventInputType) input: EventInputType,
  ) {
    return this.service.create(ctx.principal, orgId, input);
  }

  @Mutation(() => EventType, {
    description: 'Changes settings of an event (its admins); the REST API sees the change at once.',
  })
  updateEvent(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('input', () => EventInputType) input: EventInputType,
  ) {
    return this.service.update(ctx.principal, orgId, eventId, input);
  }

  @Mutation(() => EventType, {
    description:
      'Sets the cover image: JPEG, PNG or WebP, at most 10 MB and the platform pixel limit; stored as a JPEG at most 1600 px wide.',
  })
  async setEventCover(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('file', () => GraphQLUpload) file: Promise<FileUpload>,
  ) {
    return this.covers.set(
      ctx.principal,
      orgId,
      eventId,
      (await readUpload(file, { maxBytes: COVER_MAX_BYTES })).content,
    );
  }

  @Mutation(() => EventType, { description: 'Archives an event (status archived).' })
  archiveEvent(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs) {
    return this.service.archive(ctx.principal, orgId, eventId);
  }

  @Mutation(() => EventDeletionType, {
    description:
      'Deletes an event for good (confirm: true): hidden at once, then a background job removes its objects and rows; follow it with eventDeletion.',
  })
  deleteEvent(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs, @Arg('confirm') confirm: boolean) {
    return this.service.delete(ctx.principal, orgId, eventId, confirm);
  }

  @Query(() => EventDeletionType, { description: 'Progress of the deletion of an event (kept a day after it ends).' })
  eventDeletion(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs) {
    return this.service.deletionStatus(ctx.principal, orgId, eventId);
  }
}
