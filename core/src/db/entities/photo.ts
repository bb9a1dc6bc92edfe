import { Entity, OptionalProps, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { newId } from '../../ids';
import { Event } from './event';

export type PhotoStatus = 'imported' | 'queued' | 'processing' | 'processed' | 'failed';

/** Why a pipeline step failed, per step, so one failing step loses nothing of the others. */
export type PhotoStepErrors = Partial<Record<'previews' | 'exif' | 'bibs' | 'faces', string>>;

@Entity({ tableName: 'photos' })
@Unique({ properties: ['event', 'contentHash'] })
@Index({
  name: 'photos_gallery_idx',
  expression:
    'create index "photos_gallery_idx" on "photos" ("event_id", "captured_at" asc nulls last, "id") where "published_at" is not null',
})
@Index({ properties: ['event', 'status'] })
export class Photo {
  [OptionalProps]?: 'id' | 'createdAt' | 'status' | 'source';

  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Event, { deleteRule: 'cascade' })
  event!: Event;

  @Enum({ items: ['imported', 'queued', 'processing', 'processed', 'failed'], type: 'text' })
  status: PhotoStatus = 'imported';

  /** SHA-256 of the original file: a re-import of the same file is not a new photo. */
  @Property({ type: 'text' })
  contentHash!: string;

  @Property({ type: 'text' })
  originalKey!: string;

  @Property({ type: 'text' })
  originalFileName!: string;

  @Property({ type: 'text' })
  mimeType!: string;

  @Property({ type: 'bigint', nullable: true })
  fileSize?: number | null;

  /** Dimensions of the original, orientation applied. */
  @Property({ type: 'integer', nullable: true })
  width?: number | null;

  @Property({ type: 'integer', nullable: true })
  height?: number | null;

  @Property({ type: 'text', nullable: true })
  largeKey?: string | null;

  @Property({ type: 'integer', nullable: true })
  largeWidth?: number | null;

  @Property({ type: 'integer', nullable: true })
  largeHeight?: number | null;

  @Property({ type: 'text', nullable: true })
  thumbnailKey?: string | null;

  @Property({ type: 'timestamptz', nullable: true })
  capturedAt?: Date | null;

  @Property({ type: 'text', nullable: true })
  photographerName?: string | null;

  /** Where the photo came from: `upload`, `inbox`, `seed`, ... */
  @Property({ type: 'text', default: 'upload' })
  source: string = 'upload';

  /** A link to the photo on an external drive, when the organiser has one. */
  @Property({ type: 'text', nullable: true })
  externalUrl?: string | null;

  @Property({ type: 'jsonb', nullable: true })
  stepErrors?: PhotoStepErrors | null;

  @Property({ type: 'timestamptz', nullable: true })
  processedAt?: Date | null;

  /** Set by go-live: only published photos appear in the gallery and in searches. */
  @Property({ type: 'timestamptz', nullable: true })
  publishedAt?: Date | null;

  /** Set while the organiser hides the photo: it is unpublished and nothing publishes it again. */
  @Property({ type: 'timestamptz', nullable: true })
  hiddenAt?: Date | null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();
}

/** A BIB number read on a photo, normalised (trimmed, upper-case). */
@Entity({ tableName: 'photo_bibs' })
@Unique({ properties: ['photo', 'bib'] })
@Index({ properties: ['event', 'bib'] })
export class PhotoBib {
  [OptionalProps]?: 'confidence';

  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @ManyToOne(() => Photo, { deleteRule: 'cascade' })
  photo!: Photo;

  @ManyToOne(() => Event, { deleteRule: 'cascade', index: false })
  event!: Event;

  @Property({ type: 'text' })
  bib!: string;

  @Property({ type: 'real', default: 1 })
  confidence: number = 1;
}

/** A detected face and its 128-d descriptor (float32 little-endian in `embedding`). */
@Entity({ tableName: 'faces' })
@Index({ properties: ['event', 'id'] })
export class Face {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @ManyToOne(() => Photo, { deleteRule: 'cascade' })
  photo!: Photo;

  @ManyToOne(() => Event, { deleteRule: 'cascade', index: false })
  event!: Event;

  @Property({ type: 'blob' })
  embedding!: Buffer;

  @Property({ type: 'real' })
  score!: number;

  @Property({ type: 'real' })
  boxX!: number;

  @Property({ type: 'real' })
  boxY!: number;

  @Property({ type: 'real' })
  boxWidth!: number;

  @Property({ type: 'real' })
  boxHeight!: number;

  /** How the embedding was computed (FACE_DESCRIPTOR_VERSION when written): each version has its own calibration. */
  @Property({ type: 'smallint', default: 1 })
  descriptorVersion!: number;

  /** The face's quality when found (faceQuality, 0-1); null for faces stored before it was measured. */
  @Property({ type: 'real', nullable: true })
  quality?: number | null;
}
