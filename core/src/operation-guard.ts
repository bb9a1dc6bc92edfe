import { Event } from './db/entities';
import { AppError } from './errors';
import {
  assertCanWrite,
  assertEventFeatures,
  assertEventInScope,
  assertNotEventScoped,
  assertNotReadOnlyKey,
  assertOrganiser,
  assertOrganisation,
  assertOrganisationAdmin,
  assertPlatformAdmin,
  EventSource,
  eventOfOrganisation,
  guardEvent,
} from './guard';
import { OperationName, operationPolicy, OperationPolicy } from './operation-policy';
import { Principal } from './principal';
import type { EventAccess } from './repositories/events.repository';

function assertAccess(principal: Principal, policy: OperationPolicy, orgId: number): void {
  if (!policy.readOnlyKeys) assertNotReadOnlyKey(principal, 'this organiser view');
  if (!policy.eventScopedKeys) assertNotEventScoped(principal, 'this organisation-wide view');
  if (policy.access === 'write') assertCanWrite(principal);
  if (policy.access === 'organiser') assertOrganiser(principal);
  if (policy.access === 'admin') assertOrganisationAdmin(principal, orgId);
  if (policy.access === 'platform') assertPlatformAdmin(principal);
}

/** The guard of an event-scoped root field, as its service runs it: the organisation, the event, its feature flags, write access. */
export async function guardOperation<E extends EventAccess = Event>(
  events: EventSource<E>,
  principal: Principal,
  operation: OperationName,
  orgId: number,
  eventId: number,
): Promise<E> {
  const policy = operationPolicy(operation);
  // Administration first: a platform administrator administers organisations it is no member of.
  if (policy.access === 'admin') {
    assertOrganisationAdmin(principal, orgId);
    return eventOfOrganisation(events, orgId, eventId, [...policy.features]);
  }
  const event = await guardEvent(events, principal, orgId, eventId, [...policy.features]);
  assertAccess(principal, policy, orgId);
  return event;
}

/**
 * The guard of `operation` for a field of many events at once (the federated `Event` of a page of events):
 * one lookup for all, then for each event the rules of guardOperation with the event's own organisation.
 * Each event gets its row, or the error guardOperation would have thrown for it.
 */
export async function guardOperationForEvents<E extends EventAccess>(
  events: { findAccessMany(ids: readonly number[]): Promise<E[]> },
  principal: Principal,
  operation: OperationName,
  eventIds: readonly number[],
): Promise<Map<number, E | AppError>> {
  const policy = operationPolicy(operation);
  const found = new Map((await events.findAccessMany(eventIds)).map((e) => [e.id, e]));
  const guarded = new Map<number, E | AppError>();
  for (const id of eventIds) {
    try {
      if (policy.access !== 'admin') assertEventInScope(principal, id);
      const event = found.get(id);
      if (!event) throw new AppError('NOT_FOUND', 'Event not found');
      const orgId = event.organisation.id;
      if (policy.access === 'admin') assertOrganisationAdmin(principal, orgId);
      else assertOrganisation(principal, orgId);
      assertEventFeatures(event, policy.features);
      if (policy.access !== 'admin') assertAccess(principal, policy, orgId);
      guarded.set(id, event);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      guarded.set(id, err);
    }
  }
  return guarded;
}

/** The guard of an organisation-scoped root field: the organisation, and write or admin access when the field needs it. */
export function guardOrganisationOperation(principal: Principal, operation: OperationName, orgId: number): void {
  const policy = operationPolicy(operation);
  if (policy.access === 'admin') return assertOrganisationAdmin(principal, orgId);
  if (policy.access === 'platform') return assertPlatformAdmin(principal);
  assertOrganisation(principal, orgId);
  assertAccess(principal, policy, orgId);
}

/**
 * Runs the guard of `operation` for the principal: the organisation, the event and its feature
 * flags, and write access. Without an organisation (the caller sent none, or an invalid one) only
 * the credential itself is checked, which the gateway has done already.
 */
/** The guard of a root field that names no organisation (`scope: 'account'`): the credential, and platform access when the field needs it. */
export function guardAccountOperation(principal: Principal, operation: OperationName): void {
  const policy = operationPolicy(operation);
  if (policy.access === 'platform') assertPlatformAdmin(principal);
  else if (policy.access !== 'read') throw new Error(`${operation}: an account-scoped operation is read or platform`);
}

export async function authorizeOperation(
  events: EventSource,
  principal: Principal,
  operation: string,
  orgId: number | null,
  eventId: number | null,
): Promise<void> {
  const policy = operationPolicy(operation);
  if (policy.scope === 'account') return guardAccountOperation(principal, operation as OperationName);
  if (orgId === null) return;
  if (policy.scope === 'event' && eventId !== null)
    return void (await guardOperation(events, principal, operation as OperationName, orgId, eventId));
  guardOrganisationOperation(principal, operation as OperationName, orgId);
}
