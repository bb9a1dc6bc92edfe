import { Event, Organisation } from '../../db/entities';
import { EventsRepository } from '../events.repository';

/** Events in memory. `add` takes any fields of an event; the organisation is given by id. */
export class InMemoryEventsRepository implements EventsRepository {
  readonly rows = new Map<number, Event>();
  private nextId = 1;

  add(fields: Partial<Omit<Event, 'organisation'>> & { orgId?: number } = {}): Event {
    const { orgId = 1, ...rest } = fields;
    const event = Object.assign(new Event(), { id: this.nextId, name: `Event ${this.nextId}`, slug: `event-${this.nextId}` }, rest);
    event.organisation = { id: orgId } as Organisation;
    this.nextId = Math.max(this.nextId, event.id) + 1;
    this.rows.set(event.id, event);
    return event;
  }

  async findById(eventId: number): Promise<Event | null> {
    return this.rows.get(eventId) ?? null;
  }

  async markWentLive(eventId: number, at: Date): Promise<Date> {
    const event = this.rows.get(eventId)!;
    event.wentLiveAt ??= at;
    return event.wentLiveAt;
  }

  async isLive(eventId: number): Promise<boolean> {
    return !!this.rows.get(eventId)?.wentLiveAt;
  }
}
