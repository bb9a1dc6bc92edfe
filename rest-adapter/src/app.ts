import {
  AppError,
  clientAddress,
  ContentVersionReader,
  Logger,
  newId,
  normaliseErrorCode,
  ServiceMetrics,
  TrustProxy,
} from '@em/core';
import { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayClient, GraphQLResult } from './gateway-client';
import { parseJsonBody, readBody } from './http/body';
import {
  entityTag,
  noneMatchHit,
  PreparedAnswer,
  sendCacheable,
  sendNotModified,
  SharedReads,
} from './http/conditional';
import { failure, success } from './http/envelope';
import { MultipartBody, readMultipart } from './http/multipart';
import type { ReadGrants } from './http/read-grants';
import { participantPage, ParticipantPageOptions } from './http/participant-page';
import type { dashboard } from './dashboard/bff';
import { compilePath, pathSegments } from './http/router';
import { serveDocs } from './openapi/docs';
import { API_PREFIX, buildOpenApiDocument } from './openapi/document';
import { AuthorizeDocument } from './generated/graphql';
import { OperationRunner, PAGE_API_PREFIX, PreparedOperation, RouteDef, rootFieldOf } from './routes';

export { API_PREFIX };

/** Request headers the gateway needs: credentials, the caller's site, and tracing. */
const FORWARDED_HEADERS = ['x-api-key', 'authorization', 'origin', 'referer', 'user-agent'];

/** How long a refused request's unread body is still drained (so the client reads the answer) before the connection is cut. */
const LINGER_MS = 2000;

export interface AdapterOptions {
  routes: RouteDef[];
  /** The participant page's own routes, under PAGE_API_PREFIX (not in the OpenAPI document). */
  pageRoutes?: RouteDef[];
  gateway: GatewayClient;
  bodyLimitBytes: number;
  uploadLimits: { maxFileBytes: number; maxFiles: number; selfieMaxBytes: number };
  logger: Logger;
  /** Version reported in the OpenAPI document. */
  version: string;
  metrics: ServiceMetrics;
  /** Which peers' X-Forwarded-For is believed (TRUST_PROXY). */
  trustProxy: TrustProxy;
  /** The participant page (`web/`) at `/events/{org_id}/{event_id}`; absent: not served. */
  participantPage?: ParticipantPageOptions;
  /** Events' content versions (Redis), for the ETags of `validator: 'event'` routes; absent: those get none. */
  contentVersions?: Pick<ContentVersionReader, 'current'>;
  /** Answers of `shared` routes kept per content version (absent: every read runs its operation). */
  sharedReads?: SharedReads;
  /** Revalidations and kept answers of API keys authorised again without the gateway (absent: each asks it). */
  readGrants?: ReadGrants;
  /** The organisation dashboard and its backend-for-frontend at `/dashboard/`; absent: not served. */
  dashboard?: ReturnType<typeof dashboard>;
}

/**
 * The REST compatibility layer: matches a route of the table, reads its variables, runs its
 * GraphQL operation on the gateway and answers in the spec's envelope, with the HTTP status of
 * the error code when the operation fails. It holds no business rule.
 *
 * The order protects it: no credentials is a 401 before anything is read; an upload is read only
 * after the gateway has authorised the caller for the route (`authorize`), and streamed to disk;
 * a request that fails locally (400/413/415/422) is authorised first, so a bad credential gets
 * its 401/403 rather than the validation error.
 */
export function createRestHandler(opts: AdapterOptions) {
  const tables = routeTables(opts);
  const openApi = buildOpenApiDocument(opts.routes, opts.version);
  const servePage = opts.participantPage ? participantPage(opts.participantPage) : null;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = requestTarget(req);
    const { pathname, searchParams, method } = target;
    if (method === 'GET' && (await serveDocs(pathname, openApi, res))) return;
    if (opts.dashboard && (await opts.dashboard(req, res, pathname, searchParams))) return;
    if (servePage && (await servePage(pathname, method, res))) return;
    const hit = matchRoute(tables, req, res, target);
    if (hit) await answerRoute(opts, req, res, beginCall(opts, req, res, hit, searchParams));
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err) => answerFailure(opts, req, res, err));
  };
}

interface CompiledRoute {
  route: RouteDef;
  rootField: string;
  path: ReturnType<typeof compilePath>;
}

/** The spec's routes under API_PREFIX and the participant page's under PAGE_API_PREFIX. */
function routeTables(opts: AdapterOptions): Array<{ prefix: string; compiled: CompiledRoute[] }> {
  const compile = (routes: RouteDef[]) =>
    routes.map((route) => ({ route, rootField: rootFieldOf(route), path: compilePath(route.path) }));
  return [
    { prefix: API_PREFIX, compiled: compile(opts.routes) },
    { prefix: PAGE_API_PREFIX, compiled: compile(opts.pageRoutes ?? []) },
  ];
}

interface RequestTarget {
  pathname: string;
  searchParams: URLSearchParams;
  method: string;
}

/** The request target, split by hand: WHATWG URL parsing would read `//host/...` as a host. */
function requestTarget(req: IncomingMessage): RequestTarget {
  const target = req.url ?? '/';
  const queryAt = target.indexOf('?');
  return {
    pathname: queryAt < 0 ? target : target.slice(0, queryAt),
    searchParams: new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1)),
    method: (req.method ?? 'GET').toUpperCase(),
  };
}

type RouteHit = CompiledRoute & { params: Record<string, string> };

/** The route of the request; answers 404 (no such path) or 405 (another method) itself and gives undefined. */
function matchRoute(
  tables: Array<{ prefix: string; compiled: CompiledRoute[] }>,
  req: IncomingMessage,
  res: ServerResponse,
  { pathname, method }: RequestTarget,
): RouteHit | undefined {
  const table = tables.find((t) => pathname.startsWith(`${t.prefix}/`));
  if (!table) return void failure(res, 404, `Unknown route: ${method} ${pathname.slice(0, 200)}`);
  const path = pathname.slice(table.prefix.length);
  // Every request matches here: no object is made for a route whose path does not match.
  const candidates: RouteHit[] = [];
  const segments = pathSegments(path);
  for (const compiled of table.compiled) {
    const params = compiled.path.matchSegments(segments);
    if (params) candidates.push({ ...compiled, params });
  }
  if (candidates.length === 0) return void failure(res, 404, `Unknown route: ${method} ${pathname.slice(0, 200)}`);
  const hit = candidates.find((c) => c.route.method === method || (method === 'HEAD' && c.route.method === 'GET'));
  if (!hit) {
    const allow = [...new Set(candidates.map((c) => c.route.method))].join(', ');
    req.resume();
    return void failure(res, 405, `Method ${method} is not allowed here; use ${allow}`, { allow });
  }
  return hit;
}

/** A matched call: its route, ids, forwarded headers and the gateway's check of the caller for it. */
interface RouteCall {
  route: RouteDef;
  params: Record<string, string>;
  searchParams: URLSearchParams;
  requestId: string;
  headers: Record<string, string>;
  ids: { orgId: number | null; eventId: number | null };
  /** An invalid id of the path, refused once the caller is authorised. */
  pathError: () => Error | undefined;
  authorize: () => Promise<unknown>;
  /** The root field the gateway authorises the caller for. */
  operation: string;
}

/** Metrics and request id first, then no credentials is a 401 before anything is read. */
function beginCall(
  opts: AdapterOptions,
  req: IncomingMessage,
  res: ServerResponse,
  hit: RouteHit,
  searchParams: URLSearchParams,
): RouteCall {
  const { route, params } = hit;
  const done = opts.metrics.startRequest(`${route.method} ${route.path}`);
  res.on('finish', () => done(res.statusCode));
  const requestId = requestIdOf(req);
  res.setHeader('x-request-id', requestId);
  const headers = forwardedHeaders(req, requestId, opts.trustProxy);
  if (!headers['x-api-key'] && !headers.authorization)
    throw new AppError('UNAUTHENTICATED', 'Credentials are missing: send the X-API-Key header');

  // The ids of the path, for `authorize`; an invalid one is checked without them, then refused.
  let pathError: Error | undefined;
  const pathId = (name: string) => {
    try {
      return (route.variables[name]?.({ params, query: searchParams, body: undefined }) as number | undefined) ?? null;
    } catch (err) {
      pathError ??= err instanceof Error ? err : new AppError('BAD_REQUEST', String(err));
      return null;
    }
  };
  const ids = { orgId: pathId('orgId'), eventId: pathId('eventId') };
  // The gateway's check of a caller for a route, without its work (see `authorize` in the events subgraph).
  const authorize = async () =>
    throwOnError(await opts.gateway.execute(AuthorizeDocument, { operation: hit.rootField, ...ids }, headers));
  return {
    route,
    params,
    searchParams,
    requestId,
    headers,
    ids,
    pathError: () => pathError,
    authorize,
    operation: hit.rootField,
  };
}

/** Reads the call's input (an upload only once authorised), answers from a validator or a kept read, else runs it. */
async function answerRoute(opts: AdapterOptions, req: IncomingMessage, res: ServerResponse, call: RouteCall) {
  const { route, ids } = call;
  let upload: MultipartBody | undefined;
  try {
    let prepared: PreparedOperation;
    ({ prepared, upload } = await prepareOperation(opts, req, call));
    if (await answerFromGrant(opts, req, res, call, prepared.variables)) return;
    // The version is read before the operation: an answer is never tagged with a version newer than its content.
    const version =
      route.validator === 'event' && ids.eventId !== null ? await opts.contentVersions?.current(ids.eventId) : null;
    const etag = version ? versionTag(opts, version, route, prepared.variables) : null;
    const current = etag && noneMatchHit(req.headers['if-none-match'], etag);
    if (current) {
      // The caller still passes every check the operation would make (credential, rate limit, flags) before a 304.
      await authorizeAgain(opts, call, version!);
      return sendNotModified(res, current);
    }
    const kept = etag && route.shared ? opts.sharedReads?.get(etag) : undefined;
    if (kept) {
      await authorizeAgain(opts, call, version!);
      return sendCacheable(req, res, kept, etag);
    }
    const data = await prepared.answer(operationRunner(opts, call, upload?.files.length ? upload.files : null));
    sendAnswer(opts, req, res, route, data, etag);
  } finally {
    await upload?.cleanup();
  }
}

/**
 * The call's operation from its input: an upload is read only after the gateway authorised the caller, and
 * streamed to disk; a request that fails locally (400/413/415/422) is authorised first, so a bad credential
 * gets its 401/403 rather than the validation error.
 */
async function prepareOperation(
  opts: AdapterOptions,
  req: IncomingMessage,
  call: RouteCall,
): Promise<{ prepared: PreparedOperation; upload?: MultipartBody }> {
  const { route, params, searchParams, authorize, pathError } = call;
  const contentType = req.headers['content-type'] ?? '';
  if (route.uploads && /^multipart\/form-data/i.test(contentType)) {
    await authorizeUpload(opts, call);
    const invalidPath = pathError();
    if (invalidPath) throw invalidPath;
    const { fields, single, selfie } = route.uploads;
    const upload = await readMultipart(req, {
      maxFileBytes: selfie ? opts.uploadLimits.selfieMaxBytes : opts.uploadLimits.maxFileBytes,
      maxFiles: opts.uploadLimits.maxFiles,
      fileFields: fields,
      oneFile: single,
    });
    try {
      return { prepared: route.prepare({ params, query: searchParams, body: upload.fields }), upload };
    } catch (err) {
      await upload.cleanup();
      throw err;
    }
  }
  try {
    const raw = await readBody(req, opts.bodyLimitBytes);
    const body = route.method === 'POST' ? parseJsonBody(raw, contentType) : undefined;
    return { prepared: route.prepare({ params, query: searchParams, body }) };
  } catch (err) {
    if (err instanceof AppError && err.status < 500) await authorize();
    throw err;
  }
}

/** Runs the call's GraphQL operations on the gateway (with its files, if any); an internal error is logged. */
function operationRunner(
  opts: AdapterOptions,
  { route, headers, requestId }: RouteCall,
  files: MultipartBody['files'] | null,
): OperationRunner {
  return async (document, variables) => {
    const result = files
      ? await opts.gateway.executeWithFiles(document, variables, route.uploads!, files, headers)
      : await opts.gateway.execute(document, variables, headers);
    return throwOnError(result, (errors) =>
      opts.logger.error({ requestId, errors, route: route.path }, 'operation failed'),
    );
  };
}

/** The envelope: tagged by the content version (kept when shared), by its body, or not at all. */
function sendAnswer(
  opts: AdapterOptions,
  req: IncomingMessage,
  res: ServerResponse,
  route: RouteDef,
  data: unknown,
  etag: string | null,
): void {
  if (!route.validator) return success(res, `${route.summary}: ok`, data);
  const envelope = { responseType: 'success' as const, message: `${route.summary}: ok`, data };
  if (route.validator === 'event') {
    const answer = PreparedAnswer.of(envelope);
    if (etag && route.shared) opts.sharedReads?.set(etag, answer);
    return sendCacheable(req, res, answer, etag);
  }
  const bodyTag = entityTag(['body', opts.version, JSON.stringify(envelope)]);
  const unchanged = noneMatchHit(req.headers['if-none-match'], bodyTag);
  return unchanged ? sendNotModified(res, unchanged) : sendCacheable(req, res, envelope, bodyTag);
}

/** The ETag of an answer that changes only with the event's content: its version, the route and its variables (the org among them). */
function versionTag(
  opts: AdapterOptions,
  version: string,
  route: RouteDef,
  variables: Readonly<Record<string, unknown>>,
): string {
  return entityTag(['event', opts.version, version, route.path, JSON.stringify(variables)]);
}

/**
 * A 304 or a kept answer for an API key the gateway granted this read moments ago (ReadGrants), at the version
 * that grant was given: the version check and the charge to the caller's budget are one Redis script. False
 * when there is no such grant or answer, the event's version moved on, or Redis failed: the caller then takes
 * the path that reads the version and asks the gateway.
 */
async function answerFromGrant(
  opts: AdapterOptions,
  req: IncomingMessage,
  res: ServerResponse,
  call: RouteCall,
  variables: Readonly<Record<string, unknown>>,
): Promise<boolean> {
  const { route, ids, headers, operation } = call;
  if (route.validator !== 'event' || ids.eventId === null || !opts.readGrants || !opts.contentVersions) return false;
  const grant = opts.readGrants.keyOf({ headers, operation, ...ids, eventId: ids.eventId });
  const version = grant && opts.readGrants.versionOf(grant);
  if (!version) return false;
  const etag = versionTag(opts, version, route, variables);
  const current = noneMatchHit(req.headers['if-none-match'], etag);
  const kept = !current && route.shared ? opts.sharedReads?.get(etag) : undefined;
  if (!current && !kept) return false;
  const charged = await opts.readGrants.charge(grant, ids.eventId).catch(slowerPathUnlessRefused);
  if (!charged) return false;
  if (current) sendNotModified(res, current);
  else sendCacheable(req, res, kept!, etag);
  return true;
}

/**
 * The check before an upload is read: under a grant of the gateway for this caller and operation (a read, charged
 * in one Redis script as the gateway's `authorize` is), else the gateway's check, whose grant is kept. The gateway
 * still authenticates and authorises the operation itself before it reads a file part.
 */
async function authorizeUpload(opts: AdapterOptions, call: RouteCall): Promise<void> {
  const { ids, headers, operation } = call;
  const { readGrants, contentVersions } = opts;
  const keys =
    ids.eventId !== null && readGrants && contentVersions
      ? readGrants.keyOf({ headers, operation, ...ids, eventId: ids.eventId })
      : null;
  if (!keys || !readGrants || !contentVersions || ids.eventId === null) return void (await call.authorize());
  if (await readGrants.charge(keys, ids.eventId).catch(slowerPathUnlessRefused)) return;
  const version = await contentVersions.current(ids.eventId);
  if (!version) return void (await call.authorize());
  await authorizeAgain(opts, call, version);
}

/** A refusal (429) is the caller's answer; any other failure of a grant's charge takes the path through the gateway. */
function slowerPathUnlessRefused(err: unknown): false {
  if (err instanceof AppError) throw err;
  return false;
}

/** The gateway's check again, for a 304 or a kept answer; an API key's grant is kept for the next ones. */
async function authorizeAgain(opts: AdapterOptions, call: RouteCall, version: string): Promise<void> {
  const { ids, headers, operation } = call;
  const grant = opts.readGrants?.keyOf({ headers, operation, ...ids, eventId: ids.eventId! });
  if (!grant) return void (await call.authorize());
  const answer = await opts.gateway.executeForGrant(AuthorizeDocument, { operation, ...ids }, headers);
  throwOnError(answer.result);
  if (answer.grant) opts.readGrants!.keep(grant, answer.grant, version);
}

/** An AppError in the envelope with its status (and Retry-After); anything else is logged and a 500. */
function answerFailure(opts: AdapterOptions, req: IncomingMessage, res: ServerResponse, err: unknown): void {
  if (err instanceof AppError) {
    const retryAfter = err.details?.retryAfterSeconds;
    return refuse(req, res, err.status, err.message, retryAfter ? { 'retry-after': String(Number(retryAfter)) } : {});
  }
  opts.logger.error({ err }, 'unexpected adapter failure');
  refuse(req, res, 500, 'Internal error');
}

/** The operation's data, or its first error as an AppError (an internal one reported to `onInternal`). */
function throwOnError<TData>(
  result: GraphQLResult<TData>,
  onInternal?: (errors: GraphQLResult['errors']) => void,
): TData {
  const error = result.errors?.[0];
  if (!error && result.data) return result.data;
  const code = normaliseErrorCode(error?.extensions?.code);
  if (code === 'INTERNAL') onInternal?.(result.errors);
  throw new AppError(code, error?.message ?? 'Internal error', {
    retryAfterSeconds: error?.extensions?.retryAfterSeconds,
  });
}

/**
 * Answers an error in the envelope. When the body has not been read (a refused upload), the
 * connection is then closed the lingering way: our side ends at once (FIN, so that the client
 * reads the answer and stops sending), what still arrives is discarded, and the socket is cut
 * after LINGER_MS. Node's own `Connection: close` would destroy the socket with unread data in
 * it, and the reset can reach the client before the answer.
 */
function refuse(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return void req.socket.destroy();
  failure(res, status, message, headers);
  if (req.complete) return;
  res.once('finish', () => {
    req.unpipe();
    req.resume();
    req.socket.end();
    setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
  });
}

function forwardedHeaders(req: IncomingMessage, requestId: string, trustProxy: TrustProxy): Record<string, string> {
  const headers: Record<string, string> = { 'x-request-id': requestId };
  for (const name of FORWARDED_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string' && value) headers[name] = value;
  }
  // The gateway trusts this adapter's X-Forwarded-For: it names the client address resolved here
  // (through TRUST_PROXY), never a chain a client wrote.
  headers['x-forwarded-for'] = clientAddress(req, trustProxy);
  return headers;
}

/** The caller's request id when it is a short token, else a new one: never a long or odd value in logs, headers or jobs. */
function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : newId();
}
