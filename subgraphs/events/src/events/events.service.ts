import { formatDateTime, Page, PAGE_LIMITS, pageInfo, Principal, resolvePage } from '@em/core';
import { canReadOrganisation, Event, eventHasFeature, guardOperation, guardOrganisationOperation, Orm } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { QueryOrder } from '@mikro-orm/core';

export interface EventView {
  id: number;
  orgId: number;
  name: string;
  slug: string;
  eventDate: string | null;
  status: string;
  enabled: boolean;
  bibSearch: boolean;
  selfieSearch: boolean;
  nameSearch: boolean;
  videoSearch: boolean;
  videoSelfieSearch: boolean;
  timelineSearch: boolean;
  coverImageUrl: string | null;
  timeZone: string;
  confidenceThreshold: number | null;
}

export class EventsService {
  constructor(
    private readonly orm: Orm,
    private readonly store: ObjectStore,
  ) {}

  /** The organisation's events, most recent event date first (undated last), then newest id first. */
  async list(principal: Principal, orgId: number, page?: number | null, pageSize?: number | null): Promise<Page<EventView>> {
    guardOrganisationOperation(principal, 'events', orgId);
    const request = resolvePage(page, pageSize, PAGE_LIMITS.events);
    const [events, total] = await this.orm.em.findAndCount(
      Event,
      { organisation: orgId },
      { orderBy: [{ eventDate: QueryOrder.DESC_NULLS_LAST }, { id: QueryOrder.DESC }], limit: request.pageSize, offset: request.offset },
    );
    return { items: events.map((e) => this.view(e)), pageInfo: pageInfo(total, request) };
  }

  async details(principal: Principal, orgId: number, eventId: number): Promise<EventView> {
    return this.view(await guardOperation(this.orm.em, principal, 'event', orgId, eventId));
  }

  /** The federation entry point (`_entities`): the event, or null when missing or of an organisation the principal may not read. */
  async byReference(principal: Principal, id: unknown): Promise<EventView | null> {
    const eventId = Number(id);
    if (!Number.isSafeInteger(eventId) || eventId <= 0 || eventId > 2147483647) return null;
    const event = await this.orm.em.findOne(Event, { id: eventId });
    return event && canReadOrganisation(principal, event.organisation.id) ? this.view(event) : null;
  }

  private view(e: Event): EventView {
    return {
      id: e.id,
      orgId: e.organisation.id,
      name: e.name,
      slug: e.slug,
      eventDate: formatDateTime(e.eventDate),
      status: e.status,
      enabled: e.enabled,
      bibSearch: e.bibSearch,
      selfieSearch: e.selfieSearch,
      nameSearch: e.nameSearch,
      videoSearch: e.videoSearch,
      videoSelfieSearch: eventHasFeature(e, 'videoSelfieSearch'),
      timelineSearch: e.timelineSearch,
      coverImageUrl: e.coverImageKey ? this.store.publicUrl(e.coverImageKey) : null,
      timeZone: e.timeZone,
      confidenceThreshold: e.confidenceThreshold ?? null,
    };
  }
}
