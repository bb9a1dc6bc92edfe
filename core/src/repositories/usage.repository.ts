import { EntityManager } from '@mikro-orm/core';
import { RepositorySource, repositoryHandle } from './repository-source';

/** One event's usage in one calendar month (UTC). */
export interface UsageRow {
  eventId: number;
  /** First day of the month, YYYY-MM. */
  month: string;
  /** New `request_id`s only (the spec's billing rule: a retry of a stored search is free). */
  faceSearchesBilled: number;
  photosProcessed: number;
  videosIndexed: number;
  clipsMade: number;
}

/** The usage report: counts over several tables, per event and month (a read model), and the copy kept of a deleted event's. */
export interface UsageRepository {
  /**
   * The organisation's usage in [from, to), per event and month, event then month ascending. A
   * deleted event's usage is kept per whole month: its months that start in the window.
   */
  perEventAndMonth(orgId: number, from: Date, to: Date): Promise<UsageRow[]>;
  /** Copies an event's usage, every month, before its rows are deleted (idempotent: a retry rewrites the same counts). */
  archiveEvent(eventId: number): Promise<void>;
}

/** The billable things, one row each with its event, month (UTC) and kind; `scope` filters on `e` (the event) and the time column. */
const counted = (scope: (at: string) => string) => `
  select e.organisation_id, e.id as event_id, date_trunc('month', fs.created_at at time zone 'UTC') as month, 'search' as kind
    from face_searches fs join events e on e.id = fs.event_id where fs.billable and ${scope('fs.created_at')}
  union all
  select e.organisation_id, e.id, date_trunc('month', p.processed_at at time zone 'UTC'), 'photo'
    from photos p join events e on e.id = p.event_id where ${scope('p.processed_at')}
  union all
  select e.organisation_id, e.id, date_trunc('month', v.indexed_at at time zone 'UTC'), 'video'
    from videos v join events e on e.id = v.event_id where ${scope('v.indexed_at')}
  union all
  select e.organisation_id, e.id, date_trunc('month', c.created_at at time zone 'UTC'), 'clip'
    from clips c join events e on e.id = c.clip_request_event_id where ${scope('c.created_at')}`;

/** The event's billable things; one not done yet (a photo failed or never processed) has no month and is not billed. */
const ofEvent = (at: string) => `e.id = ? and ${at} is not null`;

const COUNTS = `count(*) filter (where kind = 'search')::int as searches, count(*) filter (where kind = 'photo')::int as photos,
  count(*) filter (where kind = 'video')::int as videos, count(*) filter (where kind = 'clip')::int as clips`;

export class SqlUsageRepository implements UsageRepository {
  private readonly em: () => EntityManager;

  constructor(source: RepositorySource) {
    this.em = repositoryHandle(source).em;
  }

  async perEventAndMonth(orgId: number, from: Date, to: Date): Promise<UsageRow[]> {
    const inWindow = (at: string) => `e.organisation_id = ? and ${at} >= ? and ${at} < ?`;
    const rows = (await this.em()
      .getConnection()
      .execute(
        `with counted as (${counted(inWindow)})
         select event_id, to_char(month, 'YYYY-MM') as month, ${COUNTS} from counted group by event_id, month
         union all
         select a.event_id, to_char(a.month, 'YYYY-MM'), a.face_searches_billed, a.photos_processed, a.videos_indexed, a.clips_made
           from archived_usage a
          where a.organisation_id = ? and a.month >= date_trunc('month', ?::timestamptz at time zone 'UTC') and a.month < ?::timestamptz at time zone 'UTC'
            and not exists (select 1 from events e where e.id = a.event_id)
         order by event_id, month`,
        [...Array.from({ length: 4 }, () => [orgId, from, to]).flat(), orgId, from, to],
      )) as Array<{ event_id: number; month: string; searches: number; photos: number; videos: number; clips: number }>;
    return rows.map((r) => ({
      eventId: r.event_id,
      month: r.month,
      faceSearchesBilled: r.searches,
      photosProcessed: r.photos,
      videosIndexed: r.videos,
      clipsMade: r.clips,
    }));
  }

  async archiveEvent(eventId: number): Promise<void> {
    await this.em()
      .getConnection()
      .execute(
        `insert into archived_usage (organisation_id, event_id, month, face_searches_billed, photos_processed, videos_indexed, clips_made)
         select organisation_id, event_id, month::date, ${COUNTS} from (${counted(ofEvent)}) counted group by organisation_id, event_id, month
         on conflict (event_id, month) do update set face_searches_billed = excluded.face_searches_billed, photos_processed = excluded.photos_processed,
           videos_indexed = excluded.videos_indexed, clips_made = excluded.clips_made`,
        [eventId, eventId, eventId, eventId],
      );
  }
}
