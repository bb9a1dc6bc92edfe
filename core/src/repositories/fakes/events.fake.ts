import { Event, Organisation } from '../../db/entities';
import type { EventSettings, EventsRepository } from '../events.repository';

/** Events kept as entity objects in memory (no ORM): what the SQL repository returns, without Postgres. */
export class InMemoryEventsRepository implements EventsRepository {
  readonly rows: Event[] = [];

  // --- administration (helper "admin") ---
  async findById(id: number) {
    return this.rows.find((e) => e.id === id && !e.deletingAt) ?? null;
  }
  async listForOrganisation(orgId: number, limit: number, offset: number) {
    const all = this.rows
      .filter((e) => e.organisation.id === orgId && !e.deletingAt)
      .sort((a, b) => (b.eventDate?.getTime() ?? -Infinity) - (a.eventDate?.getTime() ?? -Infinity) || b.id - a.id);
    return { items: all.slice(offset, offset + limit), total: all.length };
  }
  async findBySlug(orgId: number, slug: string) {
    return this.rows.find((e) => e.organisation.id === orgId && e.slug === slug && !e.deletingAt) ?? null;
  }
  async slugTaken(orgId: number, slug: string, exceptEventId?: number) {
    return this.rows.some((e) => e.organisation.id === orgId && e.slug === slug && e.id !== exceptEventId);
  }
  async create(orgId: number, settings: EventSettings) {
    const event = Object.assign(new Event(), settings, { id: this.rows.length + 1, organisation: { id: orgId } as Organisation, createdAt: new Date() });
    this.rows.push(event);
    return event;
  }
  async update(id: number, settings: Partial<EventSettings>) {
    const event = await this.findById(id);
    return event ? Object.assign(event, settings) : null;
  }
  async markDeleting(id: number, at: Date) {
    const event = this.rows.find((e) => e.id === id);
    if (event) Object.assign(event, { deletingAt: at, enabled: false });
  }
  async findDeleting(id: number) {
    return this.rows.find((e) => e.id === id && e.deletingAt) ?? null;
  }
  async deleteRow(id: number) {
    const i = this.rows.findIndex((e) => e.id === id);
    if (i >= 0) this.rows.splice(i, 1);
  }
  // --- end of administration ---
}
