import { EntityManager } from '@mikro-orm/core';

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

/** The usage report: counts over several tables, per event and month (a read model, no writes). */
export interface UsageRepository {
  /** The organisation's usage in [from, to), per event and month, event then month ascending. */
  perEventAndMonth(orgId: number, from: Date, to: Date): Promise<UsageRow[]>;
}

export class SqlUsageRepository implements UsageRepository {
  constructor(private readonly em: () => EntityManager) {}

  async perEventAndMonth(orgId: number, from: Date, to: Date): Promise<UsageRow[]> {
    const rows = await this.em()
      .getConnection()
      .execute(
        `with counted as (
           select fs.event_id, date_trunc('month', fs.created_at at time zone 'UTC') as month, 'search' as kind
             from face_searches fs where fs.organisation_id = ? and fs.billable and fs.created_at >= ? and fs.created_at < ?
           union all
           select p.event_id, date_trunc('month', p.processed_at at time zone 'UTC'), 'photo'
             from photos p join events e on e.id = p.event_id where e.organisation_id = ? and p.processed_at >= ? and p.processed_at < ?
           union all
           select v.event_id, date_trunc('month', v.indexed_at at time zone 'UTC'), 'video'
             from videos v join events e on e.id = v.event_id where e.organisation_id = ? and v.indexed_at >= ? and v.indexed_at < ?
           union all
           select e.id, date_trunc('month', c.created_at at time zone 'UTC'), 'clip'
             from clips c join events e on e.id = c.clip_request_event_id
            where e.organisation_id = ? and c.created_at >= ? and c.created_at < ?
         )
         select event_id, to_char(month, 'YYYY-MM') as month,
                count(*) filter (where kind = 'search')::int as searches, count(*) filter (where kind = 'photo')::int as photos,
                count(*) filter (where kind = 'video')::int as videos, count(*) filter (where kind = 'clip')::int as clips
           from counted group by event_id, month order by event_id, month`,
        [orgId, from, to, orgId, from, to, orgId, from, to, orgId, from, to],
      );
    return rows.map((r: any) => ({
      eventId: r.event_id,
      month: r.month,
      faceSearchesBilled: r.searches,
      photosProcessed: r.photos,
      videosIndexed: r.videos,
      clipsMade: r.clips,
    }));
  }
}
