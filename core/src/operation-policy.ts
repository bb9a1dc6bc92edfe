import type { EventFeature } from './db/entities/event';
import { AppError } from './errors';

/** Reads, and the stricter budget of face-matching calls (face search POST, clipping start). */
export type RateClass = 'read' | 'matching';

/** What a root field of the API needs from its caller, and what it costs. */
export interface OperationPolicy {
  /** What the guard checks: the credential alone, an organisation, or an event of it. */
  scope: 'account' | 'organisation' | 'event';
  /** Feature flags of the event that must all be on (a disabled event refuses them too). */
  features: readonly EventFeature[];
  /**
   * `write`: a key of the organisation or a token with events:write; `admin`: the token (events:write)
   * of an admin of the organisation or of a platform administrator; `platform`: a platform administrator's token;
   * `organiser`: a member's (or platform administrator's) token with events:write, never an API key.
   */
  access: 'read' | 'write' | 'organiser' | 'admin' | 'platform';
  /** The rate-limit budget one call of the field counts against (one unit per field). */
  rate: RateClass;
  /** A call naming a `requestId` that already has a stored result is answered from it: a read. */
  storedRequestIdIsRead: boolean;
  /**
   * Whether a read-only key may call it. Those keys are public (the participant page's link):
   * organiser views (billing, video file names) are refused to them.
   */
  readOnlyKeys: boolean;
  /**
   * Whether a key limited to some events may call it. Event fields check the event against the key's
   * list (guardEvent); organisation-wide views (billing) are refused; the events list shows its events.
   */
  eventScopedKeys: boolean;
}

interface Options {
  features?: EventFeature[];
  rate?: RateClass;
  storedRequestIdIsRead?: boolean;
  readOnlyKeys?: boolean;
  eventScopedKeys?: boolean;
}
const policy =
  (access: OperationPolicy['access']) =>
  (
    scope: OperationPolicy['scope'],
    {
      features = [],
      rate = 'read',
      storedRequestIdIsRead = false,
      readOnlyKeys = true,
      eventScopedKeys = true,
    }: Options = {},
  ): OperationPolicy => ({
    scope,
    features,
    access,
    rate,
    storedRequestIdIsRead,
    readOnlyKeys,
    eventScopedKeys,
  });
const read = policy('read');
const write = policy('write');
const organiser = policy('organiser');
const admin = policy('admin');
const platform = policy('platform');
const VIDEO_SELFIE: EventFeature[] = ['videoSearch', 'videoSelfieSearch'];

/**
 * The one table of what each root field of the API (Query, Mutation and the gateway's
 * Subscription) needs and costs. The services guard with it (`guardOperation`,
 * `guardOrganisationOperation`), the `authorize` query answers from it so that the REST adapter
 * can refuse a caller before it reads an upload, the gateway's rate limiter charges by its `rate`
 * and `storedRequestIdIsRead`, and the clipStatus subscription guards with it.
 */
export const OPERATION_POLICY = {
  account: read('account'),
  authorize: read('account'),
  events: read('organisation'),
  event: read('event'),
  ping: read('event'),
  apiKeys: admin('organisation'),
  createApiKey: admin('organisation'),
  setApiKeyActive: admin('organisation'),
  deleteApiKey: admin('organisation'),
  photos: read('event'),
  photo: read('event'),
  originalDownloads: read('event'),
  // Organiser views: a public browser key sees neither video file names nor billing.
  eventVideos: read('event', { readOnlyKeys: false }),
  bibSearch: read('event', { features: ['bibSearch'] }),
  searchFaces: read('event', { features: ['selfieSearch'], rate: 'matching', storedRequestIdIsRead: true }),
  faceSearch: read('event', { features: ['selfieSearch'] }),
  // Billing of the whole organisation: never a public browser key nor a key limited to some events.
  faceSearchUsage: read('organisation', { readOnlyKeys: false, eventScopedKeys: false }),
  timelineDays: read('event', { features: ['timelineSearch'] }),
  timelinePhotos: read('event', { features: ['timelineSearch'] }),
  startVideoClipping: read('event', { features: VIDEO_SELFIE, rate: 'matching' }),
  videoClipping: read('event', { features: VIDEO_SELFIE }),
  clipStatus: read('event', { features: VIDEO_SELFIE }),
  // The dashboard follows its photos: guarded like pipelineStatus, which the gateway asks first.
  photoStatus: write('event'),
  // The videos page follows indexing: guarded like eventVideos, which the gateway asks first.
  videoStatus: read('event', { readOnlyKeys: false }),
  importPhotos: write('event'),
  // A browser's upload straight to the bucket is an import in steps: guarded like it.
  startPhotoUpload: write('event'),
  photoUploadParts: write('event'),
  completePhotoUpload: write('event'),
  abortPhotoUpload: write('event'),
  processPhotos: write('event'),
  // One failed photo queued again: the per-photo form of processPhotos' retryFailed.
  retryPhoto: write('event'),
  goLive: write('event'),
  // The pipeline's progress is the organiser's view, guarded like its actions.
  pipelineStatus: write('event'),
  addEventVideo: write('event'),
  // Start lists hold names (personal data): the organiser's (a write key or token) to import and read back.
  importStartList: write('event'),
  exportStartList: write('event'),
  startListSize: write('event'),
  searchByName: read('event', { features: ['nameSearch'] }),
  // Photo review: the organiser's corrections, from the dashboard or a token; never a key (nor REST).
  reviewQueue: organiser('event'),
  reviewPhoto: organiser('event'),
  addPhotoBib: organiser('event'),
  removePhotoBib: organiser('event'),
  hidePhoto: organiser('event'),
  unhidePhoto: organiser('event'),
  deletePhoto: organiser('event'),
  // Administration: organisations, events and their settings, members, usage.
  organisations: read('account'),
  organisation: read('organisation'),
  createOrganisation: platform('account'),
  renameOrganisation: admin('organisation'),
  createEvent: admin('organisation'),
  updateEvent: admin('event'),
  setEventCover: admin('event'),
  archiveEvent: admin('event'),
  deleteEvent: admin('event'),
  eventDeletion: admin('organisation'),
  members: admin('organisation'),
  inviteMember: admin('organisation'),
  setMemberRole: admin('organisation'),
  removeMember: admin('organisation'),
  usage: admin('organisation'),
  auditLog: admin('organisation'),
} as const satisfies Record<string, OperationPolicy>;

/** A root field with a row in the table. */
export type OperationName = keyof typeof OPERATION_POLICY;

/** The row of a root field, or undefined (an unknown name, `__typename`, an inherited property name). */
export function findOperationPolicy(operation: string): OperationPolicy | undefined {
  return Object.prototype.hasOwnProperty.call(OPERATION_POLICY, operation)
    ? OPERATION_POLICY[operation as OperationName]
    : undefined;
}

export function operationPolicy(operation: string): OperationPolicy {
  const found = findOperationPolicy(operation);
  if (!found) throw new AppError('BAD_REQUEST', `Unknown operation "${operation.slice(0, 64)}"`);
  return found;
}
