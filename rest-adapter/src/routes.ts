import { bodyBoolean, bodyString, bodyStringArray, bodyValue, flag, noBodyFields, pathInt, pathString, queryInt, requiredQueryInt, requiredQueryString, VariableSpec } from './http/params';
import * as map from './mappers';

/**
 * The REST interface of the spec, one row per route: the GraphQL operation it runs on the
 * gateway, where its variables come from, and the shape of `data`.
 */
export interface RouteDef {
  method: 'GET' | 'POST';
  path: string;
  summary: string;
  /** The OpenAPI component that describes `data` on success (rest-adapter/src/openapi/schemas.ts). */
  response: string;
  operation: string;
  variables: VariableSpec;
  data: (result: Record<string, any>) => unknown;
  /**
   * Multipart uploads: the form fields that carry files and the variable they fill (a list, or one
   * file when `single`); a selfie is held to the selfie size limit instead of the photo one.
   */
  uploads?: { fields: string[]; variable: string; single?: boolean; selfie?: boolean };
  /**
   * A GET's validator (ETag): `event` when the answer changes only with the event's content
   * version (an If-None-Match that matches is answered 304 without running the operation), `body`
   * when it changes otherwise (a hash of the answer: the operation runs, the transfer is saved).
   */
  validator?: 'event' | 'body';
  /** The same answer for every caller of the event at one content version: kept and served from `SharedReads`. */
  shared?: boolean;
}

const org = { orgId: pathInt('orgId', 'org_id') };
const orgEvent = { ...org, eventId: pathInt('eventId', 'event_id') };
const paging = { page: queryInt('page', 'Page number, from 1.'), pageSize: queryInt('page_size', 'Items per page; above the maximum it is clamped.') };
const ORG_EVENT_ARGS = '$orgId: Int!, $eventId: Int!';
const PAGE_ARGS = '$page: Int, $pageSize: Int';

export const ROUTES: RouteDef[] = [
  {
    method: 'GET',
    path: '/:orgId/events',
    validator: 'body',
    summary: 'List events',
    response: 'EventList',
    operation: `query ListEvents($orgId: Int!, ${PAGE_ARGS}) { events(orgId: $orgId, page: $page, pageSize: $pageSize) { items { ${map.EVENT_FIELDS} } pageInfo { ${map.PAGE_INFO_FIELDS} } } }`,
    variables: { ...org, ...paging },
    data: (r) => ({ events: r.events.items.map(map.eventListItem), pagination: map.pagination(r.events.pageInfo) }),
  },
  {
    method: 'GET',
    path: '/:orgId/event/:eventId/details',
    validator: 'event',
    summary: 'Event details',
    response: 'EventDetails',
    operation: `query EventDetails(${ORG_EVENT_ARGS}) { event(orgId: $orgId, eventId: $eventId) { ${map.EVENT_FIELDS} } }`,
    variables: orgEvent,
    data: (r) => map.eventDetails(r.event),
  },
  {
    method: 'GET',
    path: '/:orgId/event/:eventId/ping',
    summary: 'Ping',
    response: 'Ping',
    operation: `query Ping(${ORG_EVENT_ARGS}) { ping(orgId: $orgId, eventId: $eventId) { status orgId eventId } }`,
    variables: orgEvent,
    data: (r) => ({ status: r.ping.status, org_id: r.ping.orgId, event_id: r.ping.eventId }),
  },
  {
    method: 'GET',
    path: '/account',
    summary: 'Account',
    response: 'Account',
    operation: 'query Account { account { accountLabel scopes organisations { orgId name slug role } } }',
    variables: {},
    data: (r) => ({
      account_label: r.account.accountLabel,
      scopes: r.account.scopes,
      organisations: r.account.organisations.map((o: any) => ({ org_id: o.orgId, name: o.name, slug: o.slug, role: o.role })),
    }),
  },
  {
    method: 'GET',
    path: '/:orgId/event/:eventId/images',
    validator: 'event',
    shared: true,
    summary: 'All photos',
    response: 'ImagesWithMeta',
    operation: `query AllPhotos(${ORG_EVENT_ARGS}, ${PAGE_ARGS}) { photos(orgId: $orgId, eventId: $eventId, page: $page, pageSize: $pageSize) { items { ${map.IMAGE_WITH_META_FIELDS} } pageInfo { ${map.PAGE_INFO_FIELDS} } } }`,
    variables: { ...orgEvent, ...paging },
    data: (r) => map.imagePage(r.photos, map.imageItemWithMeta),
  },
  {
    method: 'GET',
    path: '/:orgId/event/:eventId/images/:imageId',
    validator: 'event',
    summary: 'Image details',
    response: 'ImageItemWithMeta',
    operation: `query ImageDetails(${ORG_EVENT_ARGS}, $imageId: String!) { photo(orgId: $orgId, eventId: $eventId, imageId: $imageId) { ${map.IMAGE_WITH_META_FIELDS} } }`,
    variables: { ...orgEvent, imageId: pathString('imageId', 'image_id', 'The photo (UUID).') },
    data: (r) => map.imageItemWithMeta(r.photo),
  },
  {
    method: 'GET',
    path: '/:orgId/event/:eventId/bibs/:bib',
    validator: 'event',
    summary: 'BIB search',
    response: 'Images',
    operation: `query BibSearch(${ORG_EVENT_ARGS}, $bib: String!, ${PAGE_ARGS}) { bibSearch(orgId: $orgId, eventId: $eventId, bib: $bib, page: $page, pageSize: $pageSize) { items { ${map.IMAGE_FIELDS} } pageInfo { ${map.PAGE_INFO_FIELDS} } } }`,
    variables: { ...orgEvent, bib: pathString('bib', 'bib', 'BIB number, case-insensitive.'), ...paging },
    data: (r) => map.imagePage(r.bibSearch),
  },
  {
    method: 'POST',
    path: '/:orgId/event/:eventId/faces',
    summary: 'Face search by selfie',
    response: 'FaceSearch',
    operation: `mutation SearchFaces(${ORG_EVENT_ARGS}, $file: Upload, $requestId: String, ${PAGE_ARGS}) { searchFaces(orgId: $orgId, eventId: $eventId, file: $file, requestId: $requestId, page: $page, pageSize: $pageSize) { ${map.FACE_SEARCH_FIELDS} } }`,
    variables: { ...orgEvent, requestId: bodyString('request_id', 'Optional UUID; a stored one returns its result (idempotent retry).', { type: 'string', format: 'uuid' }), ...paging },
    uploads: { fields: ['file'], variable: 'file', single: true, selfie: true },
    data: (r) => map.faceSearch(r.searchFaces),
  },
  {
    method: 'GET',
    path: '/:orgId/event/:eventId/faces/:requestId',
    validator: 'event',
    summary: 'Cached face search',
    response: 'FaceSearch',
    operation: `query FaceSearch(${ORG_EVENT_ARGS}, $requestId: String!, ${PAGE_ARGS}) { faceSearch(orgId: $orgId, eventId: $eventId, requestId: $requestId, page: $page, pageSize: $pageSize) { ${map.FACE_SEARCH_FIELDS} } }`,
    variables: { ...orgEvent, requestId: pathString('requestId', 'request_id', 'The face search (UUID).'), ...paging },
    data: (r) => map.faceSearch(r.faceSearch),
  },
  {
    method: 'GET',
    path: '/:orgId/event/:eventId/timeline/days',
    validator: 'event',
    shared: true,
    summary: 'Timeline buckets',
    response: 'TimelineDays',
    operation: `query TimelineDays(${ORG_EVENT_ARGS}) { timelineDays(orgId: $orgId, eventId: $eventId) { date total hours { hour count } } }`,
    variables: orgEvent,
    data: (r) => ({ days: r.timelineDays }),
  },
  {
    method: 'GET',
    path: '/:orgId/event/:eventId/timeline/images',
    validator: 'event',
    shared: true,
    summary: 'Timeline window',
    response: 'Images',
    operation: `query TimelinePhotos(${ORG_EVENT_ARGS}, $from: Float, $to: Float, ${PAGE_ARGS}) { timelinePhotos(orgId: $orgId, eventId: $eventId, from: $from, to: $to, page: $page, pageSize: $pageSize) { items { ${map.IMAGE_FIELDS} } pageInfo { ${map.PAGE_INFO_FIELDS} } } }`,
    variables: { ...orgEvent, from: requiredQueryInt('from', 'UNPROCESSABLE', 'Window start, Unix epoch seconds, inclusive.'), to: requiredQueryInt('to', 'UNPROCESSABLE', 'Window end, Unix epoch seconds, exclusive; greater than from.'), ...paging },
    data: (r) => map.imagePage(r.timelinePhotos),
  },
  {
    method: 'POST',
    path: '/:orgId/event/:eventId/video-clipping/search-by-selfie',
    summary: 'Start clipping',
    response: 'ClippingStart',
    operation: `mutation StartVideoClipping(${ORG_EVENT_ARGS}, $file: Upload, $requestId: String, $forceRecreate: Boolean) { startVideoClipping(orgId: $orgId, eventId: $eventId, file: $file, requestId: $requestId, forceRecreate: $forceRecreate) { requestId status } }`,
    variables: {
      ...orgEvent,
      requestId: bodyString('request_id', 'UUID of an earlier face search (alone: reuses its selfie).', { type: 'string', format: 'uuid' }),
      forceRecreate: flag('force_recreate', 'Recreate deleted or expired clips of an existing request_id.'),
    },
    uploads: { fields: ['file'], variable: 'file', single: true, selfie: true },
    data: (r) => ({ status: r.startVideoClipping.status, request_id: r.startVideoClipping.requestId }),
  },
  {
    method: 'GET',
    path: '/:orgId/event/:eventId/video-clipping/:requestId',
    validator: 'body',
    summary: 'Read clipping result',
    response: 'ClippingResult',
    operation: `query VideoClipping(${ORG_EVENT_ARGS}, $requestId: String!) { videoClipping(orgId: $orgId, eventId: $eventId, requestId: $requestId) { ${map.CLIPPING_FIELDS} } }`,
    variables: { ...orgEvent, requestId: pathString('requestId', 'request_id', 'The clipping request (UUID).') },
    data: (r) => map.videoClipping(r.videoClipping),
  },
  {
    method: 'POST',
    path: '/:orgId/event/:eventId/original-photos',
    summary: 'Presigned original downloads',
    response: 'Downloads',
    operation: `query OriginalDownloads(${ORG_EVENT_ARGS}, $method: String, $identifier: JSON, ${PAGE_ARGS}) { originalDownloads(orgId: $orgId, eventId: $eventId, method: $method, identifier: $identifier, page: $page, pageSize: $pageSize) { ${map.DOWNLOAD_FIELDS} } }`,
    variables: { ...orgEvent, method: bodyValue('method', { type: 'string', enum: ['bib', 'selfie', 'image_id', 'image_ids'] }),
      identifier: bodyValue('identifier', { oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string' }, minItems: 1 }] }, 'A string for bib, selfie (request_id) and image_id; a non-empty list of image ids for image_ids.'),
      ...paging },
    data: (r) => map.originalDownloads(r.originalDownloads),
  },
  {
    method: 'GET',
    path: '/:orgId/event/:eventId/pipeline/photos/status',
    summary: 'Pipeline status',
    response: 'PipelineStatus',
    operation: `query PipelineStatus(${ORG_EVENT_ARGS}) { pipelineStatus(orgId: $orgId, eventId: $eventId) { ${map.PIPELINE_STATUS_FIELDS} } }`,
    variables: orgEvent,
    data: (r) => map.pipelineStatus(r.pipelineStatus),
  },
  {
    method: 'POST',
    path: '/:orgId/event/:eventId/pipeline/photos/import',
    summary: 'Import photos',
    response: 'ImportReport',
    operation: `mutation ImportPhotos(${ORG_EVENT_ARGS}, $keys: [String!], $files: [Upload!], $photographerName: String) { importPhotos(orgId: $orgId, eventId: $eventId, keys: $keys, files: $files, photographerName: $photographerName) { imported duplicates rejected files { key status imageId reason } } }`,
    variables: { ...orgEvent, keys: bodyStringArray('keys', 'Inbox object keys to import (JSON body); without files and keys, the whole inbox.'), photographerName: bodyString('photographer_name', 'Photographer label of uploaded files.') },
    uploads: { fields: ['files', 'file'], variable: 'files' },
    data: (r) => map.importReport(r.importPhotos),
  },
  {
    method: 'POST',
    path: '/:orgId/event/:eventId/pipeline/photos/process',
    summary: 'Process photos',
    response: 'ProcessReport',
    operation: `mutation ProcessPhotos(${ORG_EVENT_ARGS}, $retryFailed: Boolean) { processPhotos(orgId: $orgId, eventId: $eventId, retryFailed: $retryFailed) { queued } }`,
    variables: { ...orgEvent, retryFailed: bodyBoolean('retry_failed', 'Also queue photos that failed.') },
    data: (r) => ({ queued: r.processPhotos.queued }),
  },
  {
    method: 'POST',
    path: '/:orgId/event/:eventId/pipeline/photos/go-live',
    summary: 'Publish photos',
    response: 'GoLiveReport',
    operation: `mutation GoLive(${ORG_EVENT_ARGS}) { goLive(orgId: $orgId, eventId: $eventId) { published isLive wentLiveAt } }`,
    variables: { ...orgEvent, body: noBodyFields },
    data: (r) => ({ published: r.goLive.published, is_live: r.goLive.isLive, went_live_at: map.dateTime(r.goLive.wentLiveAt) }),
  },
];

/** The root field a route's operation runs (`importPhotos`): what the gateway authorises it by. */
export function rootFieldOf(route: RouteDef): string {
  const field = /^[^{]*\{\s*(\w+)/.exec(route.operation)?.[1];
  if (!field) throw new Error(`No root field in the operation of ${route.method} ${route.path}`);
  return field;
}

/** Where the participant page's own routes live: outside the spec's API, never in its OpenAPI document. */
export const PAGE_API_PREFIX = '/events/api';

/**
 * Routes only the participant page (`web/`) uses, beside the spec's: same envelope, credentials,
 * authorisation and rate limits, but not part of the REST contract (SPEC.md is unchanged).
 */
export const PAGE_ROUTES: RouteDef[] = [
  {
    method: 'GET',
    path: '/:orgId/event/:eventId/names',
    summary: 'Name search',
    response: 'NameSearch',
    operation: `query SearchByName(${ORG_EVENT_ARGS}, $query: String!) { searchByName(orgId: $orgId, eventId: $eventId, query: $query) { bib name photoCount } }`,
    variables: { ...orgEvent, query: requiredQueryString('q', 100, 'Part of a name (at least 2 letters).') },
    data: (r) => ({ participants: r.searchByName.map((m: { bib: string; name: string; photoCount: number }) => ({ bib: m.bib, name: m.name, photo_count: m.photoCount })) }),
  },
];
