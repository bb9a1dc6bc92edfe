import { Directive, Field, Int, ObjectType } from 'type-graphql';

@ObjectType('EventVideoCounts', { description: "An event's videos by indexing state (organisers)." })
export class EventVideoCountsType {
  @Field(() => Int, { description: 'Every video added, whatever its state.' }) total!: number;
  @Field(() => Int) indexed!: number;
  @Field(() => Int) failed!: number;
}

/** The events subgraph's Event, with the video counts this subgraph owns. */
@ObjectType('Event')
@Directive('@key(fields: "id")')
export class VideoCountedEventType {
  @Field(() => Int) id!: number;
}
