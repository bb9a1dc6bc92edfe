import { Field, GraphQLISODateTime, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('PhotoUploadPart', { description: 'A presigned PUT of one part of a multipart upload.' })
export class PhotoUploadPartType {
  @Field(() => Int) partNumber!: number;
  @Field({ description: 'PUT exactly `size` bytes of the file from (partNumber - 1) * partSize.' }) url!: string;
  @Field(() => Int) size!: number;
}

@ObjectType('PhotoUpload', {
  description:
    'A photo upload straight to object storage: PUT the file to `url` (with its Content-Type), or each part ' +
    'to its URL, then completePhotoUpload. The URLs expire at `expiresAt`.',
})
export class PhotoUploadType {
  @Field({ description: 'The object key the server chose; names the upload in the other mutations.' }) key!: string;
  @Field(() => String, { nullable: true, description: 'One PUT for the whole file; null for a multipart upload.' })
  url!: string | null;
  @Field(() => String, { nullable: true }) multipartUploadId!: string | null;
  @Field(() => Int, { nullable: true }) partSize!: number | null;
  @Field(() => [PhotoUploadPartType]) parts!: PhotoUploadPartType[];
  @Field(() => GraphQLISODateTime) expiresAt!: Date;
}

@ObjectType('UploadedPart')
export class UploadedPartType {
  @Field(() => Int) partNumber!: number;
  @Field(() => Int) size!: number;
}

@ObjectType('PhotoUploadParts', { description: 'Where a multipart upload stands, to resume it.' })
export class PhotoUploadPartsType {
  @Field(() => [UploadedPartType], { description: 'Parts stored: skip them.' }) uploaded!: UploadedPartType[];
  @Field(() => [PhotoUploadPartType], { description: 'Fresh URLs for the parts still missing.' })
  missing!: PhotoUploadPartType[];
  @Field(() => GraphQLISODateTime) expiresAt!: Date;
}

@ObjectType('CompletedPhotoUpload')
export class CompletedPhotoUploadType {
  @Field({ description: 'imported (a new photo, queued for processing) or duplicate (same content as imageId).' })
  status!: string;
  @Field(() => ID) imageId!: string;
}
