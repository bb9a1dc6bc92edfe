import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';

@InputType('EventInput', {
  description:
    'Settings of an event; a field left out keeps its value (its default on creation). Null clears the nullable ones.',
})
export class EventInputType {
  @Field(() => String, { nullable: true, description: 'Required on creation; 1 to 200 characters, one line.' }) name?:
    string | null;
  @Field(() => String, {
    nullable: true,
    description:
      'Lower-case letters, digits and single hyphens, unique in the organisation; made from the name when left out.',
  })
  slug?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Local date (YYYY-MM-DD) or date and time (YYYY-MM-DDTHH:MM[:SS]) at the venue.',
  })
  eventDate?: string | null;
  @Field(() => String, { nullable: true, description: 'draft, active or archived.' }) status?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'event_enabled: false refuses every search of the event.' })
  enabled?: boolean | null;
  @Field(() => Boolean, { nullable: true }) bibSearch?: boolean | null;
  @Field(() => Boolean, { nullable: true }) selfieSearch?: boolean | null;
  @Field(() => Boolean, { nullable: true }) nameSearch?: boolean | null;
  @Field(() => Boolean, { nullable: true }) timelineSearch?: boolean | null;
  @Field(() => Boolean, { nullable: true }) videoSearch?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Selfie-driven clipping; needs videoSearch.' })
  videoSelfieSearch?: boolean | null;
  @Field(() => Float, {
    nullable: true,
    description: 'Face-match threshold in percent, 0 to 100; null = the platform default.',
  })
  confidenceThreshold?: number | null;
  @Field(() => String, {
    nullable: true,
    description: 'IANA time zone of the venue (Europe/Paris), for camera times without offset.',
  })
  timeZone?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Text drawn on large previews (at most 100 characters); null or empty = none.',
  })
  watermarkText?: string | null;
  @Field(() => Float, { nullable: true, description: 'Video frames sampled per second for the face index, 0.1 to 10.' })
  videoSampleFps?: number | null;
  @Field(() => Float, { nullable: true, description: 'Seconds, 0 to 60.' }) clipMaxGapSeconds?: number | null;
  @Field(() => Float, { nullable: true, description: 'Seconds, 0 to 60.' }) clipMinSegmentSeconds?: number | null;
  @Field(() => Float, { nullable: true, description: 'Seconds, 0 to 30.' }) clipPaddingStartSeconds?: number | null;
  @Field(() => Float, { nullable: true, description: 'Seconds, 0 to 30.' }) clipPaddingEndSeconds?: number | null;
  @Field(() => Float, { nullable: true, description: 'Seconds, 1 to 600.' }) clipMaxDurationSeconds?: number | null;
  @Field(() => Int, { nullable: true, description: 'Hours a clip stays downloadable, 1 to 8760; null = kept.' })
  clipRetentionHours?: number | null;
}

@ObjectType('EventDeletion', {
  description:
    'A background deletion of an event: its objects in S3 (originals, previews, videos, clips), then its rows.',
})
export class EventDeletionType {
  @Field(() => Int) eventId!: number;
  @Field(() => Int) orgId!: number;
  @Field({ description: 'queued, running, done or failed.' }) state!: string;
  @Field(() => Int, { description: '0 to 100.' }) percent!: number;
  @Field(() => Int) objectsDeleted!: number;
  @Field(() => Int) objectsFound!: number;
  @Field(() => String, { nullable: true }) error!: string | null;
}
