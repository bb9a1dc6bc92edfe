import { Page, PAGE_LIMITS, pageInfo, Principal, resolvePage } from '@em/core';
import { canReadEvent, EventsRepository, guardOperation, guardOrganisationOperation } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { EventView, eventView } from './event-view';

export type { EventView } from './event-view';

/** Reading events: the organisation's list, one event, and federation references. */
export class EventsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly store: Pick<ObjectStore, 'publicUrl'>,
  ) {}

  /** The organisation's events, most recent event date first (undated last), then newest id first. */
  async list(
    principal: Principal,
    orgId: number,
    page?: number | null,
    pageSize?: number | null,
  ): Promise<Page<EventView>> {
    guardOrganisationOperation(principal, 'events', orgId);
    const request = resolvePage(page, pageSize, PAGE_LIMITS.events);
    // A read-only key is public (the participant page's link): it never sees the organiser's drafts.
    const withoutDrafts = principal.kind === 'api_key' && principal.readOnly === true;
    // A key limited to some events lists those only.
    const onlyIds = principal.kind === 'api_key' ? principal.eventIds : undefined;
    const { items, total } = await this.events.listForOrganisation(orgId, request.pageSize, request.offset, {
      withoutDrafts,
      onlyIds,
    });
    return { items: items.map((e) => eventView(e, this.store)), pageInfo: pageInfo(total, request) };
  }

  async details(principal: Principal, orgId: number, eventId: number): Promise<EventView> {
    return eventView(await guardOperation(this.events, principal, 'event', orgId, eventId), this.store);
  }

  /** The federation entry point (`_entities`): the event, or null when missing or one the principal may not read. */
  async byReference(principal: Principal, id: unknown): Promise<EventView | null> {
    const event = await this.events.findById(Number(id));
    return event && canReadEvent(principal, event.organisation.id, event.id) ? eventView(event, this.store) : null;
  }
}
