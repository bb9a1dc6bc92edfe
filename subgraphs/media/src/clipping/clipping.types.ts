import { Directive, Field, Float, Int, ObjectType } from 'type-graphql';

@ObjectType('VideoClip')
export class VideoClipType {
  @Field() uuid!: string;
  @Field(() => String, {
    nullable: true,
    description: 'Public MP4 on the media host; null once the clip expired (recreate with forceRecreate).',
  })
  videoUrl!: string | null;
  @Field(() => String, { nullable: true }) sourceVideoKey!: string | null;
  @Field(() => String, { nullable: true, description: 'HH:MM:SS in the source video.' }) startTime!: string | null;
  @Field(() => String, { nullable: true }) endTime!: string | null;
  @Field(() => Float) startSeconds!: number;
  @Field(() => Float) endSeconds!: number;
  @Field(() => String, {
    nullable: true,
    description: 'Presigned download (attachment); null unless downloadStatus is ready.',
  })
  downloadUrl!: string | null;
  @Field({ description: 'ready, expired (past the event clip retention; recreate with forceRecreate) or deleted.' })
  downloadStatus!: string;
}

@ObjectType('ClipError')
export class ClipErrorType {
  @Field(() => String, { nullable: true }) videoKey!: string | null;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => Float, { nullable: true }) statusCode!: number | null;
}

@ObjectType('VideoClipping')
export class VideoClippingType {
  @Field() requestId!: string;
  @Field({ description: 'processing, completed, no_matches, no_segments, clip_failed or failed.' }) status!: string;
  @Field(() => [VideoClipType]) videos!: VideoClipType[];
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => [ClipErrorType]) clipErrors!: ClipErrorType[];
}

@ObjectType('VideoClippingStart')
export class VideoClippingStartType {
  @Field() requestId!: string;
  @Field({ description: 'processing, or no_matches at once.' }) status!: string;
}

/** Internal (the gateway's clipStatus subscription reads it first): not part of the API. */
@Directive('@inaccessible')
@ObjectType('CurrentClipStatus')
export class CurrentClipStatusType {
  @Field() requestId!: string;
  @Field(() => Int) eventId!: number;
  @Field({ description: 'processing, completed, no_matches, no_segments, clip_failed or failed.' }) status!: string;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field({ description: 'ISO time of the last transition.' }) at!: string;
}
