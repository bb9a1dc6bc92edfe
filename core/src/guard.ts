import { Event, EventFeature, eventHasFeature } from './db/entities';
import { AppError } from './errors';
import { Principal } from './principal';
import type { EventAccess, EventsRepository } from './repositories/events.repository';

/** Where the guard finds events: the events repository (a fake in unit tests). */
export type EventSource<E extends EventAccess = Event> = { findById(id: number): Promise<E | null> };

/** The guard's lookup as a plain row (findAccess), for callers that need nothing else of the event. */
export function accessOnly(events: Pick<EventsRepository, 'findAccess'>): EventSource<EventAccess> {
  return { findById: (id) => events.findAccess(id) };
}

const FEATURE_NAMES: Record<EventFeature, string> = {
  bibSearch: 'bib_search',
  selfieSearch: 'selfie_search',
  nameSearch: 'name_search',
  timelineSearch: 'timeline_search',
  videoSearch: 'video_search',
  videoSelfieSearch: 'video_selfie_search',
};

/**
 * May the principal read this organisation's data? An API key: when it is the organisation's.
 * An account token: when the account is an active member (or a platform administrator) and the token has `events:read`.
 * Returns why not, or null when it may.
 */
function organisationDenial(principal: Principal, orgId: number): string | null {
  if (principal.kind === 'account') {
    if (!principal.orgRoles?.[orgId] && !principal.platformAdmin)
      return 'The account is not a member of this organisation';
    if (!principal.scopes.includes('events:read')) return 'The token lacks the scope events:read';
    return null;
  }
  if (principal.orgId === null || principal.orgId !== orgId)
    return 'The credential does not belong to this organisation';
  return null;
}

export function assertOrganisation(principal: Principal, orgId: number): void {
  const denial = organisationDenial(principal, orgId);
  if (denial) throw new AppError('FORBIDDEN', denial);
}

/** The same rule as a test (federation reference resolvers answer null instead of an error). */
export function canReadOrganisation(principal: Principal, orgId: number): boolean {
  return organisationDenial(principal, orgId) === null;
}

/** An API key limited to a list of events (`create-key --events`); other keys and accounts reach every event. */
export function isEventScoped(principal: Principal): boolean {
  return principal.kind === 'api_key' && Array.isArray(principal.eventIds);
}

/**
 * A key limited to some events reaches no other event (403, as an event of another organisation).
 * Checked before the event is looked up, so the answer says nothing of events outside the list.
 */
export function assertEventInScope(principal: Principal, eventId: number): void {
  if (isEventScoped(principal) && !principal.eventIds!.includes(eventId)) {
    throw new AppError('FORBIDDEN', 'This API key is limited to other events');
  }
}

/** May the principal read this event of this organisation? (reference resolvers: null instead of an error) */
export function canReadEvent(principal: Principal, orgId: number, eventId: number): boolean {
  return canReadOrganisation(principal, orgId) && (!isEventScoped(principal) || principal.eventIds!.includes(eventId));
}

/** Organisation-wide views (billing) refused to a key limited to some events. */
export function assertNotEventScoped(principal: Principal, what: string): void {
  if (isEventScoped(principal)) {
    throw new AppError('FORBIDDEN', `An API key limited to some events cannot read ${what}`);
  }
}

/** May the principal change the organisation's events (the photo pipeline)? A key of the organisation, or a member's token with `events:write`. */
export function assertCanWrite(principal: Principal): void {
  if (principal.kind === 'api_key' && principal.readOnly) throw new AppError('FORBIDDEN', 'This API key is read-only');
  if (principal.kind === 'account' && !principal.scopes.includes('events:write')) {
    throw new AppError('FORBIDDEN', 'The token lacks the scope events:write');
  }
}

/** The organiser's own work (photo review): a member's token with `events:write`; API keys never, read-only or not. */
export function assertOrganiser(principal: Principal): void {
  if (principal.kind !== 'account')
    throw new AppError('FORBIDDEN', "Reviewing photos needs an organiser's OAuth bearer token, never an API key");
  assertCanWrite(principal);
}

/** Organiser views refused to read-only (public browser) keys. */
export function assertNotReadOnlyKey(principal: Principal, what: string): void {
  if (principal.kind === 'api_key' && principal.readOnly)
    throw new AppError('FORBIDDEN', `A read-only (browser) key cannot read ${what}`);
}

/**
 * May the principal manage the organisation (events, members, API keys)? Only a token with
 * `events:write` of an admin of the organisation, or of a platform administrator. API keys never.
 */
export function assertOrganisationAdmin(principal: Principal, orgId: number): void {
  if (principal.kind !== 'account')
    throw new AppError('FORBIDDEN', 'Managing the organisation needs an OAuth bearer token of an admin');
  if (principal.orgRoles?.[orgId] !== 'admin' && !principal.platformAdmin)
    throw new AppError('FORBIDDEN', 'Only admins of the organisation may do this');
  if (!principal.scopes.includes('events:write'))
    throw new AppError('FORBIDDEN', 'The token lacks the scope events:write');
}

/** May the principal administer the platform (create organisations)? Only a platform administrator's token with `events:write`. */
export function assertPlatformAdmin(principal: Principal): void {
  if (principal.kind !== 'account')
    throw new AppError(
      'FORBIDDEN',
      'Administering the platform needs an OAuth bearer token of a platform administrator',
    );
  if (!principal.platformAdmin) throw new AppError('FORBIDDEN', 'Only platform administrators may do this');
  if (!principal.scopes.includes('events:write'))
    throw new AppError('FORBIDDEN', 'The token lacks the scope events:write');
}

/**
 * The one authorisation rule of the read and search paths: the organisation in the path is the
 * principal's, the event exists (404) and belongs to it (403), and every feature flag the call
 * needs is on (403). A disabled event (`event_enabled` false) refuses its search features too;
 * an event being deleted is gone (404).
 */
export async function guardEvent<E extends EventAccess>(
  source: EventSource<E>,
  principal: Principal,
  orgId: number,
  eventId: number,
  features: EventFeature[] = [],
): Promise<E> {
  assertOrganisation(principal, orgId);
  assertEventInScope(principal, eventId);
  return eventOfOrganisation(source, orgId, eventId, features);
}

/** The event (404 when missing or being deleted), of this organisation (403), with these features on (403). */
export async function eventOfOrganisation<E extends EventAccess>(
  source: EventSource<E>,
  orgId: number,
  eventId: number,
  features: EventFeature[] = [],
): Promise<E> {
  const event = await source.findById(eventId);
  if (!event) throw new AppError('NOT_FOUND', 'Event not found');
  if (event.organisation.id !== orgId)
    throw new AppError('FORBIDDEN', 'The event does not belong to this organisation');
  assertEventFeatures(event, features);
  return event;
}

/** Every feature flag on, on an enabled event (403 otherwise). */
export function assertEventFeatures(event: EventAccess, features: readonly EventFeature[]): void {
  for (const feature of features) {
    if (!event.enabled || !eventHasFeature(event, feature)) {
      throw new AppError('FORBIDDEN', `The feature ${FEATURE_NAMES[feature]} is not enabled for this event`);
    }
  }
}
