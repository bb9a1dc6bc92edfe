import { PageInfoType } from '@em/subgraph-kit';
import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('PresignedDownload')
export class PresignedDownloadType {
  @Field(() => ID) imageId!: string;
  @Field({ description: 'Presigned GET of the original; expires after about an hour.' }) url!: string;
  @Field() fileName!: string;
}

@ObjectType('FailedDownload')
export class FailedDownloadType {
  @Field() imageId!: string;
  @Field() error!: string;
  @Field({ description: 'Storage path of the original, or empty when the image is unknown.' }) path!: string;
}

@ObjectType('OriginalDownloads')
export class OriginalDownloadsType {
  @Field(() => [PresignedDownloadType]) presignedUrls!: PresignedDownloadType[];
  @Field(() => [FailedDownloadType]) failedUrls!: FailedDownloadType[];
  @Field(() => Int, { description: 'Images the request selects, over all pages.' }) totalImages!: number;
  @Field(() => Int, { description: 'Links on this page.' }) successfulCount!: number;
  @Field(() => Int, { description: 'Failures on this page.' }) failedCount!: number;
  @Field(() => String, { nullable: true, description: 'The identifier as sent; null when it was a list.' })
  identifier!: string | null;
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
}
