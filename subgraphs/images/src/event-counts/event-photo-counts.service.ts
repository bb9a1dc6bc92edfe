import { AppError, Principal } from '@em/core';
import { EventPhotoCounts, EventsRepository, guardOperationForEvents, PhotosRepository } from '@em/core/data';

export type PhotoCounts = Omit<EventPhotoCounts, 'eventId'>;

/**
 * The photo counts of a page of events, for the events list: guarded per event as `pipelineStatus` is
 * (the same view), read for all the events allowed in one query.
 */
export class EventPhotoCountsService {
  constructor(
    private readonly events: Pick<EventsRepository, 'findAccessMany'>,
    private readonly photos: Pick<PhotosRepository, 'countsOfEvents'>,
  ) {}

  /** Per event id asked, in order: its counts, or why the caller may not read them. */
  async countsOf(principal: Principal, eventIds: readonly number[]): Promise<Array<PhotoCounts | AppError>> {
    const guarded = await guardOperationForEvents(this.events, principal, 'pipelineStatus', eventIds);
    const allowed = eventIds.filter((id) => !(guarded.get(id) instanceof AppError));
    const counts = new Map((await this.photos.countsOfEvents(allowed)).map((c) => [c.eventId, c]));
    return eventIds.map((id) => {
      const refusal = guarded.get(id);
      if (refusal instanceof AppError) return refusal;
      const { total = 0, processed = 0, failed = 0, live = 0 } = counts.get(id) ?? {};
      return { total, processed, failed, live };
    });
  }
}
