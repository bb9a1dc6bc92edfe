import { Field, Float, ID, ObjectType } from 'type-graphql';

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
