import { Field, Float, GraphQLISODateTime, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('PipelineFailure')
export class PipelineFailureType {
  @Field() reason!: string;
  @Field(() => Int) count!: number;
}

@ObjectType('PipelineFailedPhoto')
export class PipelineFailedPhotoType {
  @Field(() => ID) imageId!: string;
  @Field() fileName!: string;
  @Field() reason!: string;
}

@ObjectType('PipelineStatus', { description: 'Per-stage photo counts of an event and whether it is live.' })
export class PipelineStatusType {
  @Field() isLive!: boolean;
  @Field(() => GraphQLISODateTime, { nullable: true }) wentLiveAt!: Date | null;
  @Field(() => Int) total!: number;
  @Field(() => Int) imported!: number;
  @Field(() => Int) queued!: number;
  @Field(() => Int) processing!: number;
  @Field(() => Int) processed!: number;
  @Field(() => Int) failed!: number;
  @Field(() => Int, { description: 'Published photos.' }) live!: number;
  @Field(() => Float, { description: 'Done (processed or failed) / total, 0-1.' }) progress!: number;
  @Field(() => [PipelineFailureType]) failures!: PipelineFailureType[];
  @Field(() => [PipelineFailedPhotoType], {
    description: 'The latest failed photos (20 at most), to retry one by one.',
  })
  failedPhotos!: PipelineFailedPhotoType[];
  @Field(() => GraphQLISODateTime, { nullable: true }) lastImportedAt!: Date | null;
  @Field(() => GraphQLISODateTime, { nullable: true }) lastProcessedAt!: Date | null;
}

@ObjectType('ImportedFile')
export class ImportedFileType {
  @Field() key!: string;
  @Field({ description: 'imported, duplicate or rejected.' }) status!: string;
  @Field(() => ID, { nullable: true }) imageId!: string | null;
  @Field(() => String, { nullable: true }) reason!: string | null;
}

@ObjectType('ImportReport')
export class ImportReportType {
  @Field(() => Int) imported!: number;
  @Field(() => Int) duplicates!: number;
  @Field(() => Int) rejected!: number;
  @Field(() => [ImportedFileType]) files!: ImportedFileType[];
}

@ObjectType('ProcessReport')
export class ProcessReportType {
  @Field(() => Int, { description: 'Photos queued for processing by this call.' }) queued!: number;
}

@ObjectType('GoLiveReport')
export class GoLiveReportType {
  @Field(() => Int, { description: 'Photos published by this call.' }) published!: number;
  @Field() isLive!: boolean;
  @Field(() => GraphQLISODateTime) wentLiveAt!: Date;
}
