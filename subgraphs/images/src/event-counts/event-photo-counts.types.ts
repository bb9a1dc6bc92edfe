import { Directive, Field, Int, ObjectType } from 'type-graphql';

@ObjectType('EventPhotoCounts', { description: "An event's photos by where they stand (organisers)." })
export class EventPhotoCountsType {
  @Field(() => Int, { description: 'Every photo imported, whatever its state.' }) total!: number;
  @Field(() => Int) processed!: number;
  @Field(() => Int) failed!: number;
  @Field(() => Int, { description: 'Published photos.' }) live!: number;
}

/** The events subgraph's Event, with the photo counts this subgraph owns. */
@ObjectType('Event')
@Directive('@key(fields: "id")')
export class PhotoCountedEventType {
  @Field(() => Int) id!: number;
}
