import { Entity, OptionalProps, Index, ManyToOne, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { ApiKey, Organisation } from './organisation';
import { Event } from './event';

export interface FaceMatch {
  photoId: string;
  /** Similarity in percent (0-100). */
  confidence: number;
}

/**
 * One selfie search, kept under its event and request_id: the cache of face search GET and
 * downloads. A request_id is the client's and names a search within one event only.
 */
@Entity({ tableName: 'face_searches' })
@Index({ properties: ['organisation', 'createdAt'] })
@Index({ properties: ['event', 'createdAt'] })
export class FaceSearch {
  [PrimaryKeyProp]?: ['event', 'requestId'];
  [OptionalProps]?: 'createdAt' | 'updatedAt' | 'matches' | 'billable' | 'cacheHits' | 'facesFound';

  @ManyToOne(() => Event, { deleteRule: 'cascade', primary: true })
  event!: Event;

  @PrimaryKey({ type: 'uuid' })
  requestId!: string;

  @ManyToOne(() => Organisation, { deleteRule: 'cascade', index: false })
  organisation!: Organisation;

  @ManyToOne(() => ApiKey, { deleteRule: 'set null', nullable: true })
  apiKey?: ApiKey | null;

  /** The selfie's descriptor; null when no face was found on it. */
  @Property({ type: 'blob', nullable: true })
  embedding?: Buffer | null;

  /** The confidence threshold that filtered the matches (percent); null = none configured. */
  @Property({ type: 'real', nullable: true })
  confidenceThreshold?: number | null;

  /** Matches in result order (best first). */
  @Property({ type: 'jsonb' })
  matches: FaceMatch[] = [];

  /** A fresh search counts as billable; a cached retry does not. */
  @Property({ type: 'boolean', default: true })
  billable: boolean = true;

  /** Retries answered from this record (not billable). */
  @Property({ type: 'integer', default: 0 })
  cacheHits: number = 0;

  /** Faces found on the selfie (the largest one is matched). */
  @Property({ type: 'integer', default: 0 })
  facesFound: number = 0;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  updatedAt: Date = new Date();
}
