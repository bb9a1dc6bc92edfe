import { Directive, Field, Float, Int, ObjectType } from 'type-graphql';
import { PageInfoType } from '@em/subgraph-kit';

@ObjectType('Event', { description: 'An event of an organisation, with its feature flags.' })
@Directive('@key(fields: "id")')
export class EventType {
  @Field(() => Int) id!: number;
  @Field(() => Int) orgId!: number;
  @Field() name!: string;
  @Field() slug!: string;
  @Field(() => String, { nullable: true, description: 'Local date and time of the event, YYYY-MM-DDTHH:MM:SS.' })
  eventDate!: string | null;
  @Field({ description: 'draft, active or archived.' }) status!: string;
  @Field({ description: 'event_enabled' }) enabled!: boolean;
  @Field() bibSearch!: boolean;
  @Field() selfieSearch!: boolean;
  @Field() nameSearch!: boolean;
  @Field() videoSearch!: boolean;
  @Field({ description: 'True only when videoSearch is on and the organiser enabled selfie-driven clipping.' })
  videoSelfieSearch!: boolean;
  @Field() timelineSearch!: boolean;
  @Field(() => String, { nullable: true }) coverImageUrl!: string | null;
  @Field() timeZone!: string;
  @Field(() => Float, { nullable: true, description: 'Face-match threshold in percent; null when none is configured.' })
  confidenceThreshold!: number | null;
  @Field(() => String, { nullable: true, description: 'Text drawn on large previews; null = none.' }) watermarkText!:
    string | null;
  @Field(() => Float) videoSampleFps!: number;
  @Field(() => Float) clipMaxGapSeconds!: number;
  @Field(() => Float) clipMinSegmentSeconds!: number;
  @Field(() => Float) clipPaddingStartSeconds!: number;
  @Field(() => Float) clipPaddingEndSeconds!: number;
  @Field(() => Float) clipMaxDurationSeconds!: number;
  @Field(() => Int, { nullable: true, description: 'Hours a clip stays downloadable; null = kept.' })
  clipRetentionHours!: number | null;
}

@ObjectType('EventPage')
export class EventPageType {
  @Field(() => [EventType]) items!: EventType[];
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
}
