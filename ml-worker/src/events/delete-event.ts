import { Logger } from '@em/core';
import { EventsRepository, UsageRepository } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { DeleteEventJob, DeleteEventProgress } from '@em/core/jobs';

/** Every object of an event lives under one of these prefixes (see `keys` in core's object store). */
export const eventPrefixes = (eventId: number) => [`originals/${eventId}/`, `public/${eventId}/`, `videos/${eventId}/`];

const PARALLEL_DELETES = 8;
const REPORT_EVERY = 25;

/**
 * Deletes an event marked deleted: its objects in S3 first (originals, previews, thumbnails, cover,
 * videos, clips), then a copy of its usage (billing outlives the event), then its row, which takes its
 * photos, faces, videos, searches and clips with it.
 * Idempotent: a retry lists what is left; an event already gone only has its prefixes swept.
 * An event that is not marked deleted is never touched.
 */
export class EventDeleter {
  constructor(
    private readonly events: Pick<EventsRepository, 'findById' | 'findDeleting' | 'deleteRow'>,
    private readonly usage: Pick<UsageRepository, 'archiveEvent'>,
    private readonly store: Pick<ObjectStore, 'list' | 'delete'>,
    private readonly logger: Pick<Logger, 'info' | 'warn'>,
  ) {}

  async run(
    { eventId }: DeleteEventJob,
    progress: (value: DeleteEventProgress) => Promise<void>,
  ): Promise<DeleteEventProgress | 'skipped'> {
    if (!(await this.events.findDeleting(eventId)) && (await this.events.findById(eventId))) {
      this.logger.warn({ eventId }, 'event deletion skipped: the event is not marked deleted');
      return 'skipped';
    }
    const keys: string[] = [];
    for (const prefix of eventPrefixes(eventId)) keys.push(...(await this.store.list(prefix)).map((o) => o.key));
    const state = { objectsFound: keys.length, objectsDeleted: 0 };
    await progress({ ...state });
    for (let i = 0; i < keys.length; i += PARALLEL_DELETES) {
      await Promise.all(keys.slice(i, i + PARALLEL_DELETES).map((key) => this.store.delete(key)));
      state.objectsDeleted = Math.min(keys.length, i + PARALLEL_DELETES);
      if (state.objectsDeleted % REPORT_EVERY < PARALLEL_DELETES || state.objectsDeleted === keys.length)
        await progress({ ...state });
    }
    await this.usage.archiveEvent(eventId);
    await this.events.deleteRow(eventId);
    this.logger.info({ eventId, objects: state.objectsDeleted }, 'event deleted');
    return state;
  }
}
