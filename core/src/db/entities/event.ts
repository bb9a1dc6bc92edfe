import { Entity, OptionalProps, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Organisation } from './organisation';

export type EventStatus = 'draft' | 'active' | 'archived';

@Entity({ tableName: 'events' })
@Unique({ properties: ['organisation', 'slug'] })
@Index({ properties: ['organisation', 'eventDate', 'id'] })
export class Event {
  [OptionalProps]?:
    | 'createdAt'
    | 'status'
    | 'enabled'
    | 'bibSearch'
    | 'selfieSearch'
    | 'nameSearch'
    | 'timelineSearch'
    | 'videoSearch'
    | 'videoSelfieClipping'
    | 'timeZone'
    | 'videoSampleFps'
    | 'clipMaxGapSeconds'
    | 'clipMinSegmentSeconds'
    | 'clipPaddingStartSeconds'
    | 'clipPaddingEndSeconds'
    | 'clipMaxDurationSeconds';

  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @ManyToOne(() => Organisation, { deleteRule: 'cascade' })
  organisation!: Organisation;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  slug!: string;

  /** Local date and time of the event (no zone); see `timeZone`. */
  @Property({ type: 'timestamp', nullable: true })
  eventDate?: Date | null;

  @Enum({ items: ['draft', 'active', 'archived'], type: 'text' })
  status: EventStatus = 'draft';

  @Property({ type: 'boolean', default: true })
  enabled: boolean = true;

  @Property({ type: 'boolean', default: false })
  bibSearch: boolean = false;

  @Property({ type: 'boolean', default: false })
  selfieSearch: boolean = false;

  @Property({ type: 'boolean', default: false })
  nameSearch: boolean = false;

  @Property({ type: 'boolean', default: false })
  timelineSearch: boolean = false;

  @Property({ type: 'boolean', default: false })
  videoSearch: boolean = false;

  /** The organiser enabled selfie-driven clipping; effective only with `videoSearch` on. */
  @Property({ type: 'boolean', default: false })
  videoSelfieClipping: boolean = false;

  /** Minimum face-match confidence in percent (0-100); null = the platform default applies. */
  @Property({ type: 'real', nullable: true })
  confidenceThreshold?: number | null;

  /** IANA zone of the venue, used for camera times that carry no offset. */
  @Property({ type: 'text', default: 'UTC' })
  timeZone: string = 'UTC';

  @Property({ type: 'text', nullable: true })
  coverImageKey?: string | null;

  /** Text drawn on large previews; null = no watermark. */
  @Property({ type: 'text', nullable: true })
  watermarkText?: string | null;

  // Video moments settings
  @Property({ type: 'real', default: 2 })
  videoSampleFps: number = 2;

  @Property({ type: 'real', default: 3 })
  clipMaxGapSeconds: number = 3;

  @Property({ type: 'real', default: 1 })
  clipMinSegmentSeconds: number = 1;

  @Property({ type: 'real', default: 2 })
  clipPaddingStartSeconds: number = 2;

  @Property({ type: 'real', default: 2 })
  clipPaddingEndSeconds: number = 2;

  @Property({ type: 'real', default: 30 })
  clipMaxDurationSeconds: number = 30;

  /** Hours a generated clip stays downloadable; null = kept until deleted. */
  @Property({ type: 'integer', nullable: true })
  clipRetentionHours?: number | null;

  /** Set when the organiser first published the event's photos (go-live). */
  @Property({ type: 'timestamptz', nullable: true })
  wentLiveAt?: Date | null;

  /** Set when the organiser deleted the event: it is hidden while the deletion job runs. */
  @Property({ type: 'timestamptz', nullable: true })
  deletingAt?: Date | null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();
}

export type EventFeature =
  'bibSearch' | 'selfieSearch' | 'nameSearch' | 'timelineSearch' | 'videoSearch' | 'videoSelfieSearch';

/** The flag as the API reports it: `videoSelfieSearch` needs both video flags. */
export function eventHasFeature(
  event: Pick<Event, Exclude<EventFeature, 'videoSelfieSearch'> | 'videoSelfieClipping'>,
  feature: EventFeature,
): boolean {
  if (feature === 'videoSelfieSearch') return event.videoSearch && event.videoSelfieClipping;
  return event[feature];
}
