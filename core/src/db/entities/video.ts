import {
  ArrayType,
  Entity,
  OptionalProps,
  Enum,
  Index,
  ManyToOne,
  PrimaryKey,
  PrimaryKeyProp,
  Property,
  Unique,
} from '@mikro-orm/core';
import { newId } from '../../ids';
import { Event } from './event';
import { Organisation } from './organisation';

export type VideoStatus = 'uploaded' | 'indexing' | 'indexed' | 'failed';

@Entity({ tableName: 'videos' })
@Unique({ properties: ['event', 'sourceKey'] })
export class Video {
  [OptionalProps]?: 'id' | 'createdAt' | 'status' | 'indexProgress';

  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Event, { deleteRule: 'cascade', index: false })
  event!: Event;

  /** The organiser's identifier of this video source (reported as `source_video_key`). */
  @Property({ type: 'text' })
  sourceKey!: string;

  @Property({ type: 'text' })
  storageKey!: string;

  @Property({ type: 'text' })
  originalFileName!: string;

  @Enum({ items: ['uploaded', 'indexing', 'indexed', 'failed'], type: 'text' })
  status: VideoStatus = 'uploaded';

  @Property({ type: 'text', nullable: true })
  error?: string | null;

  @Property({ type: 'real', nullable: true })
  durationSeconds?: number | null;

  @Property({ type: 'integer', nullable: true })
  width?: number | null;

  @Property({ type: 'integer', nullable: true })
  height?: number | null;

  /** Frames per second the index was sampled at. */
  @Property({ type: 'real', nullable: true })
  sampleFps?: number | null;

  /** When each new shot starts (seconds), found while indexing; null for videos indexed before shots were looked for. */
  @Property({ type: new ArrayType((i) => Number(i)), columnType: 'real[]', nullable: true })
  shotChanges?: number[] | null;

  /** Indexing progress, 0-1. */
  @Property({ type: 'real', default: 0 })
  indexProgress: number = 0;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  indexedAt?: Date | null;
}

/** A face seen in a sampled video frame. */
@Entity({ tableName: 'video_faces' })
@Index({ properties: ['event', 'id'] })
export class VideoFace {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @ManyToOne(() => Video, { deleteRule: 'cascade' })
  video!: Video;

  @ManyToOne(() => Event, { deleteRule: 'cascade', index: false })
  event!: Event;

  @Property({ type: 'real' })
  timeSeconds!: number;

  @Property({ type: 'blob' })
  embedding!: Buffer;

  @Property({ type: 'real' })
  score!: number;

  /** The face track of this sighting, numbered per video (null: indexed before tracking); a match on one sighting matches its track. */
  @Property({ type: 'int', nullable: true })
  track?: number | null;

  /** How the embedding was computed (see Face.descriptorVersion). */
  @Property({ type: 'smallint', default: 1 })
  descriptorVersion!: number;

  /** The face's quality when found (faceQuality, 0-1); null for faces stored before it was measured. */
  @Property({ type: 'real', nullable: true })
  quality?: number | null;
}

export type ClipRequestStatus = 'processing' | 'completed' | 'no_matches' | 'no_segments' | 'clip_failed' | 'failed';

export interface ClipError {
  videoKey: string | null;
  error: string | null;
  statusCode: number | null;
}

/** The frames of one video in which the selfie person was seen. */
export interface VideoMatch {
  videoId: string;
  times: number[];
}

/** A selfie-driven clipping request; shares its request_id with the face search of the same event. */
@Entity({ tableName: 'clip_requests' })
export class ClipRequest {
  [PrimaryKeyProp]?: ['event', 'requestId'];
  [OptionalProps]?: 'createdAt' | 'updatedAt' | 'status' | 'clipErrors' | 'matches' | 'generation';

  @ManyToOne(() => Event, { deleteRule: 'cascade', primary: true })
  event!: Event;

  @PrimaryKey({ type: 'uuid' })
  requestId!: string;

  @ManyToOne(() => Organisation, { deleteRule: 'cascade', nullable: true, index: false })
  organisation?: Organisation | null;

  /** The selfie's descriptor the request was matched with. */
  @Property({ type: 'blob', nullable: true })
  embedding?: Buffer | null;

  /** Matched frames per video, as found when the request was (re)started. */
  @Property({ type: 'jsonb' })
  matches: VideoMatch[] = [];

  /** Runs of this request: a new selfie or force_recreate starts the next. */
  @Property({ type: 'integer', default: 0 })
  generation: number = 0;

  @Enum({ items: ['processing', 'completed', 'no_matches', 'no_segments', 'clip_failed', 'failed'], type: 'text' })
  status: ClipRequestStatus = 'processing';

  @Property({ type: 'text', nullable: true })
  error?: string | null;

  @Property({ type: 'jsonb' })
  clipErrors: ClipError[] = [];

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  updatedAt: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  finishedAt?: Date | null;
}

export type ClipDownloadStatus = 'ready' | 'expired' | 'deleted';

@Entity({ tableName: 'clips' })
@Index({ properties: ['clipRequest'] })
export class Clip {
  [OptionalProps]?: 'id' | 'createdAt' | 'downloadStatus';

  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => ClipRequest, {
    deleteRule: 'cascade',
    index: false,
    joinColumns: ['clip_request_event_id', 'clip_request_request_id'],
  })
  clipRequest!: ClipRequest;

  @ManyToOne(() => Video, { deleteRule: 'cascade' })
  video!: Video;

  @Property({ type: 'real' })
  startSeconds!: number;

  @Property({ type: 'real' })
  endSeconds!: number;

  @Property({ type: 'text' })
  storageKey!: string;

  @Enum({ items: ['ready', 'expired', 'deleted'], type: 'text' })
  downloadStatus: ClipDownloadStatus = 'ready';

  @Property({ type: 'timestamptz', nullable: true })
  expiresAt?: Date | null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();
}
