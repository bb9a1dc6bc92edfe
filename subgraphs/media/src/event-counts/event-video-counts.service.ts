import { AppError, Principal } from '@em/core';
import { EventsRepository, EventVideoCounts, guardOperationForEvents, VideosRepository } from '@em/core/data';

export type VideoCounts = Omit<EventVideoCounts, 'eventId'>;

/**
 * The video counts of a page of events, for the events list: guarded per event as `eventVideos` is
 * (the same organiser view), read for all the events allowed in one query.
 */
export class EventVideoCountsService {
  constructor(
    private readonly events: Pick<EventsRepository, 'findAccessMany'>,
    private readonly videos: Pick<VideosRepository, 'countsOfEvents'>,
  ) {}

  /** Per event id asked, in order: its counts, or why the caller may not read them. */
  async countsOf(principal: Principal, eventIds: readonly number[]): Promise<Array<VideoCounts | AppError>> {
    const guarded = await guardOperationForEvents(this.events, principal, 'eventVideos', eventIds);
    const allowed = eventIds.filter((id) => !(guarded.get(id) instanceof AppError));
    const counts = new Map((await this.videos.countsOfEvents(allowed)).map((c) => [c.eventId, c]));
    return eventIds.map((id) => {
      const refusal = guarded.get(id);
      if (refusal instanceof AppError) return refusal;
      const { total = 0, indexed = 0, failed = 0 } = counts.get(id) ?? {};
      return { total, indexed, failed };
    });
  }
}
