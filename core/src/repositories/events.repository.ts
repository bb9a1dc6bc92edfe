import { Event } from '../db/entities';
import { Orm } from '../db/orm';

/** Every query of `events`. */
export interface EventsRepository {
  // --- read and pipeline side (helper "repos"): the guard's lookup, go-live, the worker's live check
  findById(eventId: number): Promise<Event | null>;
  /** Records the first go-live (kept when already live); returns the time the event went live. */
  markWentLive(eventId: number, at: Date): Promise<Date>;
  isLive(eventId: number): Promise<boolean>;
}

export class SqlEventsRepository implements EventsRepository {
  constructor(private readonly orm: Orm) {}

  private get em() {
    return this.orm.em.fork();
  }

  // --- read and pipeline side
  findById(eventId: number): Promise<Event | null> {
    return this.em.findOne(Event, { id: eventId });
  }

  async markWentLive(eventId: number, at: Date): Promise<Date> {
    const em = this.em;
    await em.nativeUpdate(Event, { id: eventId, wentLiveAt: null }, { wentLiveAt: at });
    return (await em.findOneOrFail(Event, { id: eventId })).wentLiveAt!;
  }

  async isLive(eventId: number): Promise<boolean> {
    return (await this.em.count(Event, { id: eventId, wentLiveAt: { $ne: null } })) > 0;
  }
}
