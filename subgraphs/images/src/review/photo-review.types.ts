import { Field, Float, ID, ObjectType, registerEnumType } from 'type-graphql';
import { PhotoType } from '../photos/photo.types';

export enum PhotoBibStatus {
  ACCEPTED = 'accepted',
  REJECTED = 'rejected',
  COMPLETED = 'completed',
  UNCONFIRMED = 'unconfirmed',
}
registerEnumType(PhotoBibStatus, {
  name: 'PhotoBibStatus',
  description:
    'ACCEPTED and COMPLETED bibs find the photo; a REJECTED one does not (not on the start list, a fragment, or the organiser removed it); an UNCONFIRMED one does once a photo taken within a minute of it holds the same number (it was read with less confidence).',
});

export enum PhotoBibSource {
  READ = 'read',
  COMPLETED = 'completed',
  ORGANISER = 'organiser',
}
registerEnumType(PhotoBibSource, {
  name: 'PhotoBibSource',
  description:
    'READ: what OCR read; COMPLETED: a fragment completed from the start list; ORGANISER: the organiser added or removed it.',
});

export enum ReviewReason {
  NO_BIB = 'no_bib',
  REJECTED_READ = 'rejected_read',
  COMPLETED_READ = 'completed_read',
}
registerEnumType(ReviewReason, { name: 'ReviewReason', description: 'Why a photo is in the review queue.' });

@ObjectType('PhotoRegion', { description: 'A box on a photo, 0-1 of its width and height from the top left.' })
export class PhotoRegionType {
  @Field(() => Float) x!: number;
  @Field(() => Float) y!: number;
  @Field(() => Float) width!: number;
  @Field(() => Float) height!: number;
}

@ObjectType('PhotoBib', {
  description: "A bib number on a photo: read, completed from the start list, or the organiser's word.",
})
export class PhotoBibType {
  @Field({ description: 'The number participants search (normalised).' }) number!: string;
  @Field(() => String, {
    nullable: true,
    description: 'What OCR read (a fragment when completed); null for a number the organiser added.',
  })
  readText!: string | null;
  @Field(() => PhotoRegionType, { nullable: true }) box!: PhotoRegionType | null;
  @Field(() => Float) confidence!: number;
  @Field(() => PhotoBibSource) source!: PhotoBibSource;
  @Field(() => PhotoBibStatus) status!: PhotoBibStatus;
}

@ObjectType('PhotoFace', { description: 'A face found on a photo (its descriptor is never exposed).' })
export class PhotoFaceType {
  @Field(() => PhotoRegionType) box!: PhotoRegionType;
  @Field(() => Float, { nullable: true, description: 'How well the face can be matched, 0-1 (pose, sharpness, size).' })
  quality!: number | null;
}

@ObjectType('ReviewQueueItem')
export class ReviewQueueItemType {
  @Field(() => PhotoType) photo!: PhotoType;
  @Field(() => [ReviewReason]) reasons!: ReviewReason[];
}

@ObjectType('ReviewQueuePage')
export class ReviewQueuePageType {
  @Field(() => [ReviewQueueItemType]) items!: ReviewQueueItemType[];
  @Field(() => String, { nullable: true, description: 'Pass as `after` for the next page.' }) endCursor!: string | null;
  @Field() hasNextPage!: boolean;
}

@ObjectType('DeletedPhoto')
export class DeletedPhotoType {
  @Field(() => ID) id!: string;
}
