import * as op from './generated/graphql';
import type { TypedDocumentString } from './generated/graphql';
import {
  bodyBoolean,
  bodyString,
  bodyStringArray,
  bodyText,
  bodyValue,
  filledByUpload,
  flag,
  noBodyFields,
  pathInt,
  pathString,
  queryInt,
  Reader,
  readVariables,
  RequestInput,
  requiredQueryInt,
  requiredQueryString,
  VariableReaders,
  VariableSpec,
} from './http/params';
import * as map from './mappers';

/** Runs a typed operation on the gateway and gives its data (its errors are thrown). */
export type OperationRunner = <TResult, TVariables>(
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables,
) => Promise<TResult>;

/** A request's variables read and bound to the route's operation. */
export interface PreparedOperation {
  /** What was read (absent optional ones left out): part of the answer's validator. */
  variables: Readonly<Record<string, unknown>>;
  /** Runs the operation through `run` and maps its data to the spec's `data`. */
  answer(run: OperationRunner): Promise<unknown>;
}

/** What a route is beside its operation: its HTTP face and caching. */
interface RouteInfo {
  method: 'GET' | 'POST';
  path: string;
  summary: string;
  /** The OpenAPI component that describes `data` on success (rest-adapter/src/openapi/schemas.ts). */
  response: string;
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

/**
 * A row of the table as written, typed by its operation (generated from rest-adapter/src/operations):
 * a reader for every variable, `data` from the operation's result type.
 */
interface TypedRoute<TResult, TVariables> extends RouteInfo {
  operation: TypedDocumentString<TResult, TVariables>;
  variables: VariableReaders<TVariables>;
  /** Checks of the request that fill no variable (a body that must be a JSON object), after the variables. */
  checks?: Array<Reader<undefined>>;
  uploads?: RouteInfo['uploads'] & { variable: keyof TVariables & string };
  data: (result: TResult) => unknown;
}

/**
 * The REST interface of the spec, one row per route: the GraphQL operation it runs on the
 * gateway, where its variables come from, and the shape of `data`. The operation's types are
 * sealed into `prepare`, so that rows of different operations share one table.
 */
export interface RouteDef extends RouteInfo {
  /** The operation's text, as sent to the gateway. */
  operation: string;
  /** The operation's name (`ImportPhotos`): the OpenAPI operationId. */
  operationName: string;
  /** The readers of the variables, for the OpenAPI document and the path ids. */
  variables: VariableSpec;
  /** Reads the request's variables (a 400 on bad input) and binds them to the operation. */
  prepare(input: RequestInput): PreparedOperation;
}

function route<TResult, TVariables extends Record<string, unknown>>(def: TypedRoute<TResult, TVariables>): RouteDef {
  const { operation, variables, checks = [], data, ...info } = def;
  const text = operation.toString();
  const operationName = /^\s*(?:query|mutation)\s+(\w+)/.exec(text)?.[1];
  if (!operationName) throw new Error(`No operation name in the operation of ${def.method} ${def.path}`);
  return {
    ...info,
    operation: text,
    operationName,
    variables,
    prepare(input) {
      const read = readVariables(variables, input);
      for (const check of checks) check(input);
      return { variables: read, answer: async (run) => data(await run(operation, read)) };
    },
  };
}

const org = { orgId: pathInt('orgId', 'org_id') };
const orgEvent = { ...org, eventId: pathInt('eventId', 'event_id') };
const paging = {
  page: queryInt('page', 'Page number, from 1.'),
  pageSize: queryInt('page_size', 'Items per page; above the maximum it is clamped.'),
};

export const ROUTES: RouteDef[] = [
  route({
    method: 'GET',
    path: '/:orgId/events',
    validator: 'body',
    summary: 'List events',
    response: 'EventList',
    operation: op.ListEventsDocument,
    variables: { ...org, ...paging },
    data: (r) => ({ events: r.events.items.map(map.eventListItem), pagination: map.pagination(r.events.pageInfo) }),
  }),
  route({
    method: 'GET',
    path: '/:orgId/event/:eventId/details',
    validator: 'event',
    shared: true,
    summary: 'Event details',
    response: 'EventDetails',
    operation: op.EventDetailsDocument,
    variables: orgEvent,
    data: (r) => map.eventDetails(r.event),
  }),
  route({
    method: 'GET',
    path: '/:orgId/event/:eventId/ping',
    summary: 'Ping',
    response: 'Ping',
    operation: op.PingDocument,
    variables: orgEvent,
    data: (r) => ({ status: r.ping.status, org_id: r.ping.orgId, event_id: r.ping.eventId }),
  }),
  route({
    method: 'GET',
    path: '/account',
    summary: 'Account',
    response: 'Account',
    operation: op.AccountDocument,
    variables: {},
    data: (r) => ({
      account_label: r.account.accountLabel,
      scopes: r.account.scopes,
      organisations: r.account.organisations.map((o) => ({
        org_id: o.orgId,
        name: o.name,
        slug: o.slug,
        role: o.role,
      })),
    }),
  }),
  route({
    method: 'GET',
    path: '/:orgId/event/:eventId/images',
    validator: 'event',
    shared: true,
    summary: 'All photos',
    response: 'ImagesWithMeta',
    operation: op.AllPhotosDocument,
    variables: { ...orgEvent, ...paging },
    data: (r) => map.imagePage(r.photos, map.imageItemWithMeta),
  }),
  route({
    method: 'GET',
    path: '/:orgId/event/:eventId/images/:imageId',
    validator: 'event',
    summary: 'Image details',
    response: 'ImageItemWithMeta',
    operation: op.ImageDetailsDocument,
    variables: { ...orgEvent, imageId: pathString('imageId', 'image_id', 'The photo (UUID).') },
    data: (r) => map.imageItemWithMeta(r.photo),
  }),
  route({
    method: 'GET',
    path: '/:orgId/event/:eventId/bibs/:bib',
    validator: 'event',
    summary: 'BIB search',
    response: 'Images',
    operation: op.BibSearchDocument,
    variables: {
      ...orgEvent,
      bib: pathString(
        'bib',
        'bib',
        'BIB number, case-insensitive. When the event has a start list, only numbers on it are stored as bibs.',
      ),
      ...paging,
    },
    data: (r) => map.imagePage(r.bibSearch),
  }),
  route({
    method: 'POST',
    path: '/:orgId/event/:eventId/faces',
    summary: 'Face search by selfie',
    response: 'FaceSearch',
    operation: op.SearchFacesDocument,
    variables: {
      ...orgEvent,
      file: filledByUpload,
      requestId: bodyString('request_id', 'Optional UUID; a stored one returns its result (idempotent retry).', {
        type: 'string',
        format: 'uuid',
      }),
      ...paging,
    },
    uploads: { fields: ['file'], variable: 'file', single: true, selfie: true },
    data: (r) => map.faceSearch(r.searchFaces),
  }),
  route({
    method: 'GET',
    path: '/:orgId/event/:eventId/faces/:requestId',
    validator: 'event',
    summary: 'Cached face search',
    response: 'FaceSearch',
    operation: op.FaceSearchDocument,
    variables: { ...orgEvent, requestId: pathString('requestId', 'request_id', 'The face search (UUID).'), ...paging },
    data: (r) => map.faceSearch(r.faceSearch),
  }),
  route({
    method: 'GET',
    path: '/:orgId/event/:eventId/timeline/days',
    validator: 'event',
    shared: true,
    summary: 'Timeline buckets',
    response: 'TimelineDays',
    operation: op.TimelineDaysDocument,
    variables: orgEvent,
    data: (r) => ({ days: r.timelineDays }),
  }),
  route({
    method: 'GET',
    path: '/:orgId/event/:eventId/timeline/images',
    validator: 'event',
    shared: true,
    summary: 'Timeline window',
    response: 'Images',
    operation: op.TimelinePhotosDocument,
    variables: {
      ...orgEvent,
      from: requiredQueryInt('from', 'UNPROCESSABLE', 'Window start, Unix epoch seconds, inclusive.'),
      to: requiredQueryInt('to', 'UNPROCESSABLE', 'Window end, Unix epoch seconds, exclusive; greater than from.'),
      ...paging,
    },
    data: (r) => map.imagePage(r.timelinePhotos),
  }),
  route({
    method: 'POST',
    path: '/:orgId/event/:eventId/video-clipping/search-by-selfie',
    summary: 'Start clipping',
    response: 'ClippingStart',
    operation: op.StartVideoClippingDocument,
    variables: {
      ...orgEvent,
      file: filledByUpload,
      requestId: bodyString('request_id', 'UUID of an earlier face search (alone: reuses its selfie).', {
        type: 'string',
        format: 'uuid',
      }),
      forceRecreate: flag('force_recreate', 'Recreate deleted or expired clips of an existing request_id.'),
    },
    uploads: { fields: ['file'], variable: 'file', single: true, selfie: true },
    data: (r) => ({ status: r.startVideoClipping.status, request_id: r.startVideoClipping.requestId }),
  }),
  route({
    method: 'GET',
    path: '/:orgId/event/:eventId/video-clipping/:requestId',
    validator: 'body',
    summary: 'Read clipping result',
    response: 'ClippingResult',
    operation: op.VideoClippingDocument,
    variables: { ...orgEvent, requestId: pathString('requestId', 'request_id', 'The clipping request (UUID).') },
    data: (r) => map.videoClipping(r.videoClipping),
  }),
  route({
    method: 'POST',
    path: '/:orgId/event/:eventId/original-photos',
    summary: 'Presigned original downloads',
    response: 'Downloads',
    operation: op.OriginalDownloadsDocument,
    variables: {
      ...orgEvent,
      method: bodyText('method', { type: 'string', enum: ['bib', 'selfie', 'image_id', 'image_ids'] }),
      identifier: bodyValue(
        'identifier',
        {
          oneOf: [
            { type: 'string', minLength: 1 },
            { type: 'array', items: { type: 'string' }, minItems: 1 },
          ],
        },
        'A string for bib, selfie (request_id) and image_id; a non-empty list of image ids for image_ids.',
      ),
      ...paging,
    },
    data: (r) => map.originalDownloads(r.originalDownloads),
  }),
  route({
    method: 'GET',
    path: '/:orgId/event/:eventId/pipeline/photos/status',
    summary: 'Pipeline status',
    response: 'PipelineStatus',
    operation: op.PipelineStatusDocument,
    variables: orgEvent,
    data: (r) => map.pipelineStatus(r.pipelineStatus),
  }),
  route({
    method: 'POST',
    path: '/:orgId/event/:eventId/pipeline/photos/import',
    summary: 'Import photos',
    response: 'ImportReport',
    operation: op.ImportPhotosDocument,
    variables: {
      ...orgEvent,
      files: filledByUpload,
      keys: bodyStringArray(
        'keys',
        'Inbox object keys to import (JSON body); without files and keys, the whole inbox.',
      ),
      photographerName: bodyString('photographer_name', 'Photographer label of uploaded files.'),
    },
    uploads: { fields: ['files', 'file'], variable: 'files' },
    data: (r) => map.importReport(r.importPhotos),
  }),
  route({
    method: 'POST',
    path: '/:orgId/event/:eventId/pipeline/photos/process',
    summary: 'Process photos',
    response: 'ProcessReport',
    operation: op.ProcessPhotosDocument,
    variables: { ...orgEvent, retryFailed: bodyBoolean('retry_failed', 'Also queue photos that failed.') },
    data: (r) => ({ queued: r.processPhotos.queued }),
  }),
  route({
    method: 'POST',
    path: '/:orgId/event/:eventId/pipeline/photos/go-live',
    summary: 'Publish photos',
    response: 'GoLiveReport',
    operation: op.GoLiveDocument,
    variables: orgEvent,
    checks: [noBodyFields],
    data: (r) => ({
      published: r.goLive.published,
      is_live: r.goLive.isLive,
      went_live_at: map.dateTime(r.goLive.wentLiveAt),
    }),
  }),
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
  route({
    method: 'GET',
    path: '/:orgId/event/:eventId/names',
    summary: 'Name search',
    response: 'NameSearch',
    operation: op.SearchByNameDocument,
    variables: { ...orgEvent, query: requiredQueryString('q', 100, 'Part of a name (at least 2 letters).') },
    data: (r) => ({
      participants: r.searchByName.map((m) => ({ bib: m.bib, name: m.name, photo_count: m.photoCount })),
    }),
  }),
];
