import { EntityManager, QueryOrder } from '@mikro-orm/core';
import { Event } from '../db/entities';
import { PreparedStatement, runPrepared, StatementSource } from '../db/prepared';
import { RepositorySource, repositoryHandle } from './repository-source';

/** The settings an organiser sets on an event (validated by the administration services). */
export interface EventSettings {
  name: string;
  slug: string;
  eventDate: Date | null;
  status: Event['status'];
  enabled: boolean;
  bibSearch: boolean;
  selfieSearch: boolean;
  nameSearch: boolean;
  timelineSearch: boolean;
  videoSearch: boolean;
  videoSelfieClipping: boolean;
  confidenceThreshold: number | null;
  timeZone: string;
  watermarkText: string | null;
  coverImageKey: string | null;
  videoSampleFps: number;
  clipMaxGapSeconds: number;
  clipMinSegmentSeconds: number;
  clipPaddingStartSeconds: number;
  clipPaddingEndSeconds: number;
  clipMaxDurationSeconds: number;
  clipRetentionHours: number | null;
}

/** Every query of `events`. */
/** What the guard reads of an event: its organisation, whether it is on, and its feature flags. */
export type EventAccess = Pick<
  Event,
  | 'id'
  | 'enabled'
  | 'bibSearch'
  | 'selfieSearch'
  | 'nameSearch'
  | 'timelineSearch'
  | 'videoSearch'
  | 'videoSelfieClipping'
> & {
  organisation: { id: number };
};

export interface EventsRepository {
  // --- administration (helper "admin"): lookups, listing, settings, deletion ---
  /** The event by id, unless it is being deleted (then it is gone for every caller). */
  findById(id: number): Promise<Event | null>;
  /** What the guard needs of the event (as findById, unless it is being deleted), read as a plain row: the read path's lookup. */
  findAccess(id: number): Promise<EventAccess | null>;
  /** findAccess for many events in one query (fields of the federated Event, a page of events at once). */
  findAccessMany(ids: readonly number[]): Promise<EventAccess[]>;
  /** The organisation's events, most recent event date first (undated last), then newest id first; drafts unless `withoutDrafts`. */
  /** `onlyIds`: these events only (a key limited to some events). */
  listForOrganisation(
    orgId: number,
    limit: number,
    offset: number,
    opts?: { withoutDrafts?: boolean; onlyIds?: number[] },
  ): Promise<{ items: Event[]; total: number }>;
  findBySlug(orgId: number, slug: string): Promise<Event | null>;
  slugTaken(orgId: number, slug: string, exceptEventId?: number): Promise<boolean>;
  create(orgId: number, settings: EventSettings): Promise<Event>;
  update(id: number, settings: Partial<EventSettings>): Promise<Event | null>;
  /** Hides the event (deleting_at) and switches it off until the deletion job has removed it. */
  markDeleting(id: number, at: Date): Promise<void>;
  /** The event being deleted, with its organisation (the deletion job's own lookup). */
  findDeleting(id: number): Promise<Event | null>;
  /** Removes the event row; its photos, faces, videos, searches and clips go with it (foreign keys cascade). */
  deleteRow(id: number): Promise<void>;
  // --- end of administration ---

  // --- read and pipeline side: go-live, the worker's live check ---
  /** Records the first go-live (kept when already live); returns the time the event went live. */
  markWentLive(eventId: number, at: Date): Promise<Date>;
  isLive(eventId: number): Promise<boolean>;
  /** Counts one more change of what participants read of the event; returns the new version (0: no such event). */
  bumpContentVersion(eventId: number): Promise<number>;
}

interface EventAccessRow {
  id: number;
  organisation_id: number;
  enabled: boolean;
  bib_search: boolean;
  selfie_search: boolean;
  name_search: boolean;
  timeline_search: boolean;
  video_search: boolean;
  video_selfie_clipping: boolean;
}

/** The guard's lookup on the read path: a prepared statement (see runPrepared). */
const EVENT_ACCESS: PreparedStatement = {
  name: 'events_access',
  text: `select id, organisation_id, enabled, bib_search, selfie_search, name_search, timeline_search, video_search, video_selfie_clipping
           from events where id = $1 and deleting_at is null`,
};

/** findAccess for many events at once. */
const EVENTS_ACCESS: PreparedStatement = {
  name: 'events_access_many',
  text: `select id, organisation_id, enabled, bib_search, selfie_search, name_search, timeline_search, video_search, video_selfie_clipping
           from events where id = any($1::int[]) and deleting_at is null`,
};

const accessOf = (row: EventAccessRow): EventAccess => ({
  id: row.id,
  organisation: { id: row.organisation_id },
  enabled: row.enabled,
  bibSearch: row.bib_search,
  selfieSearch: row.selfie_search,
  nameSearch: row.name_search,
  timelineSearch: row.timeline_search,
  videoSearch: row.video_search,
  videoSelfieClipping: row.video_selfie_clipping,
});

const validId = (id: number) => Number.isSafeInteger(id) && id > 0 && id <= 2147483647;

export class SqlEventsRepository implements EventsRepository {
  /** On the ORM (a fork per call), or on the entity manager of a unit of work. */
  private readonly em: () => EntityManager;
  /** Where prepared statements run: the ORM's pool (each takes a pooled connection of its own, outside any unit of work). */
  private readonly statements: () => StatementSource;

  constructor(source: RepositorySource) {
    ({ em: this.em, statements: this.statements } = repositoryHandle(source));
  }

  // --- administration (helper "admin") ---
  async findById(id: number) {
    return validId(id) ? this.em().findOne(Event, { id, deletingAt: null }) : null;
  }

  async findAccess(id: number): Promise<EventAccess | null> {
    if (!validId(id)) return null;
    const [row] = await runPrepared<EventAccessRow>(this.statements(), EVENT_ACCESS, [id]);
    return row ? accessOf(row) : null;
  }

  async findAccessMany(ids: readonly number[]): Promise<EventAccess[]> {
    const valid = [...new Set(ids.filter(validId))];
    if (!valid.length) return [];
    const rows = await runPrepared<EventAccessRow>(this.statements(), EVENTS_ACCESS, [valid]);
    return rows.map(accessOf);
  }

  async listForOrganisation(
    orgId: number,
    limit: number,
    offset: number,
    opts: { withoutDrafts?: boolean; onlyIds?: number[] } = {},
  ) {
    const [items, total] = await this.em().findAndCount(
      Event,
      {
        organisation: orgId,
        deletingAt: null,
        ...(opts.withoutDrafts ? { status: { $ne: 'draft' as const } } : {}),
        ...(opts.onlyIds ? { id: { $in: opts.onlyIds } } : {}),
      },
      { orderBy: [{ eventDate: QueryOrder.DESC_NULLS_LAST }, { id: QueryOrder.DESC }], limit, offset },
    );
    return { items, total };
  }

  async findBySlug(orgId: number, slug: string) {
    return this.em().findOne(Event, { organisation: orgId, slug, deletingAt: null });
  }

  async slugTaken(orgId: number, slug: string, exceptEventId?: number) {
    return (
      (await this.em().count(Event, {
        organisation: orgId,
        slug,
        ...(exceptEventId ? { id: { $ne: exceptEventId } } : {}),
      })) > 0
    );
  }

  async create(orgId: number, settings: EventSettings) {
    const em = this.em();
    const event = em.create(Event, { organisation: orgId, ...settings });
    await em.flush();
    return event;
  }

  async update(id: number, settings: Partial<EventSettings>) {
    const em = this.em();
    const event = validId(id) ? await em.findOne(Event, { id, deletingAt: null }) : null;
    if (!event) return null;
    em.assign(event, settings);
    await em.flush();
    return event;
  }

  async markDeleting(id: number, at: Date) {
    await this.em().nativeUpdate(Event, { id }, { deletingAt: at, enabled: false });
  }

  async findDeleting(id: number) {
    return validId(id) ? this.em().findOne(Event, { id, deletingAt: { $ne: null } }) : null;
  }

  async deleteRow(id: number) {
    await this.em().nativeDelete(Event, { id });
  }
  // --- end of administration ---

  // --- read and pipeline side ---
  async markWentLive(eventId: number, at: Date): Promise<Date> {
    const em = this.em();
    await em.nativeUpdate(Event, { id: eventId, wentLiveAt: null }, { wentLiveAt: at });
    return (await em.findOneOrFail(Event, { id: eventId })).wentLiveAt!;
  }

  async isLive(eventId: number): Promise<boolean> {
    return (await this.em().count(Event, { id: eventId, wentLiveAt: { $ne: null } })) > 0;
  }

  async bumpContentVersion(eventId: number): Promise<number> {
    if (!validId(eventId)) return 0;
    const rows = (await this.em()
      .getConnection()
      .execute('update events set content_version = content_version + 1 where id = ? returning content_version', [
        eventId,
      ])) as Array<{ content_version: string }>;
    return rows.length ? Number(rows[0].content_version) : 0;
  }
}
