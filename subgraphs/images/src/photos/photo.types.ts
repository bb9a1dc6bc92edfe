import { Directive, Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { PageInfoType } from '@em/subgraph-kit';

@ObjectType('PhotoMeta')
export class PhotoMetaType {
  @Field(() => Float, { nullable: true, description: 'Capture time, Unix epoch seconds.' }) photoTimestamp!:
    number | null;
  @Field(() => String, { nullable: true }) photographerName!: string | null;
  @Field() originalFileName!: string;
  @Field({ description: 'Where the photo came from: upload, inbox, seed...' }) source!: string;
  @Field({ description: 'Storage path (object key) of the original.' }) imagePath!: string;
  @Field(() => String, {
    nullable: true,
    description: 'Link to the photo on an external drive, when the organiser has one.',
  })
  externalUrl!: string | null;
}

@ObjectType('Photo', {
  description: 'A published photo. URLs point at previews; originals are downloaded through presigned links.',
})
@Directive('@key(fields: "id")')
export class PhotoType {
  @Field(() => ID) id!: string;
  @Field(() => Int) eventId!: number;
  @Field({ description: 'Large (watermarked) preview on the media host.' }) largeUrl!: string;
  @Field() thumbnailUrl!: string;
  @Field(() => Int, { description: 'Width of the large preview, pixels.' }) width!: number;
  @Field(() => Int, { description: 'Height of the large preview, pixels.' }) height!: number;
  @Field(() => String, { nullable: true, description: 'Always null: originals are never exposed as plain URLs.' })
  originalUrl!: null;
  @Field(() => PhotoMetaType) meta!: PhotoMetaType;
}

@ObjectType('PhotoPage')
export class PhotoPageType {
  @Field(() => [PhotoType]) items!: PhotoType[];
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
}
