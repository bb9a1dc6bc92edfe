import { EntityManager } from '@mikro-orm/core';
import { Event, EventFeature } from './db/entities';
import { AppError } from './errors';
import { assertCanWrite, assertOrganisation, guardEvent } from './guard';
import { Principal } from './principal';

/** What a root field of the API needs from its caller: an organisation, an event, feature flags, write access. */
export interface OperationPolicy {
  scope: 'account' | 'organisation' | 'event';
  features: readonly EventFeature[];
  writes: boolean;
}

const read = (scope: OperationPolicy['scope'], features: EventFeature[] = []): OperationPolicy => ({ scope, features, writes: false });
const write = (scope: OperationPolicy['scope'], features: EventFeature[] = []): OperationPolicy => ({ scope, features, writes: true });
const VIDEO_SELFIE: EventFeature[] = ['videoSearch', 'videoSelfieSearch'];

/**
 * The one table of who may run which root field: the services guard with it
 * (`guardOperation`), and the `authorize` query answers from it so that the REST adapter can
 * refuse a caller before it reads an upload.
 */
export const OPERATION_POLICY: Readonly<Record<string, OperationPolicy>> = {
  account: read('account'),
  events: read('organisation'),
  event: read('event'),
  ping: read('event'),
  photos: read('event'),
  photo: read('event'),
  originalDownloads: read('event'),
  pipelineStatus: read('event'),
  eventVideos: read('event'),
  bibSearch: read('event', ['bibSearch']),
  searchFaces: read('event', ['selfieSearch']),
  faceSearch: read('event', ['selfieSearch']),
  timelineDays: read('event', ['timelineSearch']),
  timelinePhotos: read('event', ['timelineSearch']),
  startVideoClipping: read('event', VIDEO_SELFIE),
  videoClipping: read('event', VIDEO_SELFIE),
  importPhotos: write('event'),
  processPhotos: write('event'),
  goLive: write('event'),
  addEventVideo: write('event'),
};

export function operationPolicy(operation: string): OperationPolicy {
  const policy = Object.prototype.hasOwnProperty.call(OPERATION_POLICY, operation) ? OPERATION_POLICY[operation] : undefined;
  if (!policy) throw new AppError('BAD_REQUEST', `Unknown operation "${operation.slice(0, 64)}"`);
  return policy;
}

/** The guard of an event-scoped root field, as its service runs it: the organisation, the event, its feature flags, write access. */
export async function guardOperation(em: EntityManager, principal: Principal, operation: string, orgId: number, eventId: number): Promise<Event> {
  const policy = operationPolicy(operation);
  const event = await guardEvent(em, principal, orgId, eventId, [...policy.features]);
  if (policy.writes) assertCanWrite(principal);
  return event;
}

/**
 * Runs the guard of `operation` for the principal: the organisation, the event and its feature
 * flags, and write access. Without an organisation (the caller sent none, or an invalid one) only
 * the credential itself is checked, which the gateway has done already.
 */
export async function authorizeOperation(em: EntityManager, principal: Principal, operation: string, orgId: number | null, eventId: number | null): Promise<void> {
  const policy = operationPolicy(operation);
  if (orgId === null || policy.scope === 'account') return;
  if (policy.scope === 'event' && eventId !== null) return void (await guardOperation(em, principal, operation, orgId, eventId));
  assertOrganisation(principal, orgId);
  if (policy.writes) assertCanWrite(principal);
}
