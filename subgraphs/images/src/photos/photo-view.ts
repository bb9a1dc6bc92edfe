import { toEpochSeconds } from '@em/core';
import { Photo } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';

export interface PhotoView {
  id: string;
  eventId: number;
  largeUrl: string;
  thumbnailUrl: string;
  width: number;
  height: number;
  originalUrl: null;
  /** Set by the organiser's review (published photos are never hidden). */
  hidden?: boolean;
  meta: {
    photoTimestamp: number | null;
    photographerName: string | null;
    originalFileName: string;
    source: string;
    imagePath: string;
    externalUrl: string | null;
  };
}

/** What a view needs of a photo: the entity, or a row read without hydrating one (the gallery). */
export type PhotoFields = Pick<
  Photo,
  | 'id'
  | 'largeKey'
  | 'thumbnailKey'
  | 'largeWidth'
  | 'largeHeight'
  | 'width'
  | 'height'
  | 'capturedAt'
  | 'photographerName'
  | 'originalFileName'
  | 'source'
  | 'originalKey'
  | 'externalUrl'
> & { event: { id: number } };

/** How a published photo is shown: preview URLs on the media host, never the original. */
export function photoView(photo: PhotoFields, store: ObjectStore): PhotoView {
  return {
    id: photo.id,
    eventId: photo.event.id,
    largeUrl: store.publicUrl(photo.largeKey!),
    thumbnailUrl: store.publicUrl(photo.thumbnailKey!),
    width: photo.largeWidth ?? photo.width ?? 0,
    height: photo.largeHeight ?? photo.height ?? 0,
    originalUrl: null,
    meta: {
      photoTimestamp: toEpochSeconds(photo.capturedAt),
      photographerName: photo.photographerName ?? null,
      originalFileName: photo.originalFileName,
      source: photo.source,
      imagePath: photo.originalKey,
      externalUrl: photo.externalUrl ?? null,
    },
  };
}
