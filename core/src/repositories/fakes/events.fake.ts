import { Event, Organisation } from '../../db/entities';
import type { EventSettings, EventsRepository } from '../events.repository';

/** Events kept as entity objects in memory (no ORM). `add` takes any fields of an event; the organisation is given by id. */
export class InMemoryEventsRepository implements EventsRepository {
  readonly rows = new Map<number, Event>();
  private nextId = 1;

  add(fields: Partial<Omit<Event, 'organisation'>> & { orgId?: number } = {}): Event {
    const { orgId = 1, ...rest } = fields;
    const event = Object.assign(
      new Event(),
      { id: this.nextId, name: `Event ${this.nextId}`, slug: `event-${this.nextId}` },
      rest,
    );
    event.organisation = { id: orgId } as Organisation;
    this.nextId = Math.max(this.nextId, event.id) + 1;
    this.rows.set(event.id, event);
    return event;
  }

  private get all(): Event[] {
    return [...this.rows.values()];
  }

  // --- administration ---
  async findById(id: number) {
    const event = this.rows.get(id);
    return event && !event.deletingAt ? event : null;
  }
  async findAccess(id: number) {
    return this.findById(id);
  }
  async findAccessMany(ids: readonly number[]) {
    return (await Promise.all([...new Set(ids)].map((id) => this.findById(id)))).filter((e): e is Event => !!e);
  }
  async listForOrganisation(
    orgId: number,
    limit: number,
    offset: number,
    opts: { withoutDrafts?: boolean; onlyIds?: number[] } = {},
  ) {
    const all = this.all
      .filter((e) => e.organisation.id === orgId && !e.deletingAt && !(opts.withoutDrafts && e.status === 'draft'))
      .filter((e) => !opts.onlyIds || opts.onlyIds.includes(e.id))
      .sort((a, b) => (b.eventDate?.getTime() ?? -Infinity) - (a.eventDate?.getTime() ?? -Infinity) || b.id - a.id);
    return { items: all.slice(offset, offset + limit), total: all.length };
  }
  async findBySlug(orgId: number, slug: string) {
    return this.all.find((e) => e.organisation.id === orgId && e.slug === slug && !e.deletingAt) ?? null;
  }
  async slugTaken(orgId: number, slug: string, exceptEventId?: number) {
    return this.all.some((e) => e.organisation.id === orgId && e.slug === slug && e.id !== exceptEventId);
  }
  async create(orgId: number, settings: EventSettings) {
    return this.add({ ...settings, orgId, createdAt: new Date() });
  }
  async update(id: number, settings: Partial<EventSettings>) {
    const event = await this.findById(id);
    return event ? Object.assign(event, settings) : null;
  }
  async markDeleting(id: number, at: Date) {
    const event = this.rows.get(id);
    if (event) Object.assign(event, { deletingAt: at, enabled: false });
  }
  async findDeleting(id: number) {
    const event = this.rows.get(id);
    return event?.deletingAt ? event : null;
  }
  async deleteRow(id: number) {
    this.rows.delete(id);
  }

  // --- read and pipeline side ---
  async markWentLive(eventId: number, at: Date): Promise<Date> {
    const event = this.rows.get(eventId)!;
    event.wentLiveAt ??= at;
    return event.wentLiveAt;
  }
  async isLive(eventId: number): Promise<boolean> {
    return !!this.rows.get(eventId)?.wentLiveAt;
  }
  /** Content versions by event (the row has no such property: only SQL reads the column). */
  readonly contentVersions = new Map<number, number>();
  async bumpContentVersion(eventId: number): Promise<number> {
    if (!this.rows.has(eventId)) return 0;
    const version = (this.contentVersions.get(eventId) ?? 1) + 1;
    this.contentVersions.set(eventId, version);
    return version;
  }
}
