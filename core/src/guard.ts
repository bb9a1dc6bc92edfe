import { EntityManager } from '@mikro-orm/core';
import { Event, EventFeature, eventHasFeature } from './db/entities';
import { AppError } from './errors';
import { Principal } from './principal';

const FEATURE_NAMES: Record<EventFeature, string> = {
  bibSearch: 'bib_search',
  selfieSearch: 'selfie_search',
  nameSearch: 'name_search',
  timelineSearch: 'timeline_search',
  videoSearch: 'video_search',
  videoSelfieSearch: 'video_selfie_search',
};

/** Is the principal allowed to act for this organisation? */
export function assertOrganisation(principal: Principal, orgId: number): void {
  if (principal.orgId === null || principal.orgId !== orgId) {
    throw new AppError('FORBIDDEN', 'The credential does not belong to this organisation');
  }
}

/**
 * The one authorisation rule of the read and search paths: the organisation in the path is the
 * principal's, the event exists (404) and belongs to it (403), and every feature flag the call
 * needs is on (403). A disabled event (`event_enabled` false) refuses its search features too.
 */
export async function guardEvent(em: EntityManager, principal: Principal, orgId: number, eventId: number, features: EventFeature[] = []): Promise<Event> {
  assertOrganisation(principal, orgId);
  const event = Number.isSafeInteger(eventId) && eventId > 0 && eventId <= 2147483647 ? await em.findOne(Event, { id: eventId }) : null;
  if (!event) throw new AppError('NOT_FOUND', 'Event not found');
  if (event.organisation.id !== orgId) throw new AppError('FORBIDDEN', 'The event does not belong to this organisation');
  for (const feature of features) {
    if (!event.enabled || !eventHasFeature(event, feature)) {
      throw new AppError('FORBIDDEN', `The feature ${FEATURE_NAMES[feature]} is not enabled for this event`);
    }
  }
  return event;
}
