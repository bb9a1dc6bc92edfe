import { guardEvent, Orm, Principal, Video } from '@em/core';
import { SubgraphContext } from '@em/subgraph-kit';
import { QueryOrder } from '@mikro-orm/core';
import { Arg, Ctx, Field, Float, ID, Int, ObjectType, Query, Resolver } from 'type-graphql';

@ObjectType('EventVideo', { description: 'A video of the event, indexed for selfie-driven clipping.' })
export class EventVideoType {
  @Field(() => ID) id!: string;
  @Field({ description: 'The source identifier (source_video_key of clips).' }) sourceKey!: string;
  @Field() originalFileName!: string;
  @Field({ description: 'uploaded, indexing, indexed or failed.' }) status!: string;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => Float, { nullable: true }) durationSeconds!: number | null;
  @Field(() => Float, { description: 'Indexing progress, 0-1.' }) indexProgress!: number;
}

export class VideosService {
  constructor(private readonly orm: Orm) {}

  /** The event's videos in upload order. */
  async list(principal: Principal, orgId: number, eventId: number): Promise<EventVideoType[]> {
    await guardEvent(this.orm.em, principal, orgId, eventId);
    const videos = await this.orm.em.find(Video, { event: eventId }, { orderBy: [{ createdAt: QueryOrder.ASC }, { id: QueryOrder.ASC }] });
    return videos.map((v) => ({
      id: v.id,
      sourceKey: v.sourceKey,
      originalFileName: v.originalFileName,
      status: v.status,
      error: v.error ?? null,
      durationSeconds: v.durationSeconds ?? null,
      indexProgress: v.indexProgress,
    }));
  }
}

@Resolver()
export class VideosResolver {
  constructor(private readonly service: VideosService) {}

  @Query(() => [EventVideoType], { description: 'Videos of the event and their indexing state.' })
  eventVideos(@Ctx() ctx: SubgraphContext, @Arg('orgId', () => Int) orgId: number, @Arg('eventId', () => Int) eventId: number) {
    return this.service.list(ctx.principal, orgId, eventId);
  }
}
