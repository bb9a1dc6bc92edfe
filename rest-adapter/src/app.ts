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
import { compilePath } from './http/router';
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
  const compile = (routes: RouteDef[]) =>
    routes.map((route) => ({ route, rootField: rootFieldOf(route), path: compilePath(route.path) }));
  const tables = [
    { prefix: API_PREFIX, compiled: compile(opts.routes) },
    { prefix: PAGE_API_PREFIX, compiled: compile(opts.pageRoutes ?? []) },
  ];
  const openApi = buildOpenApiDocument(opts.routes, opts.version);
  const servePage = opts.participantPage ? participantPage(opts.participantPage) : null;

  /** The ETag of an answer that changes only with the event's content: its version, the route and its variables (the org among them). */
  const versionTag = (version: string, route: RouteDef, variables: Readonly<Record<string, unknown>>) =>
    entityTag(['event', opts.version, version, route.path, JSON.stringify(variables)]);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The request target is split by hand: WHATWG URL parsing would read `//host/...` as a host.
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const pathname = queryAt < 0 ? target : target.slice(0, queryAt);
    const searchParams = new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1));
    const method = (req.method ?? 'GET').toUpperCase();
    if (method === 'GET' && (await serveDocs(pathname, openApi, res))) return;
    if (opts.dashboard && (await opts.dashboard(req, res, pathname, searchParams))) return;
    if (servePage && (await servePage(pathname, method, res))) return;
    const table = tables.find((t) => pathname.startsWith(`${t.prefix}/`));
    if (!table) return failure(res, 404, `Unknown route: ${method} ${pathname.slice(0, 200)}`);
    const path = pathname.slice(table.prefix.length);

    const candidates = table.compiled.map((c) => ({ ...c, params: c.path.match(path) })).filter((c) => c.params);
    if (candidates.length === 0) return failure(res, 404, `Unknown route: ${method} ${pathname.slice(0, 200)}`);
    const hit = candidates.find((c) => c.route.method === method || (method === 'HEAD' && c.route.method === 'GET'));
    if (!hit) {
      const allow = [...new Set(candidates.map((c) => c.route.method))].join(', ');
      req.resume();
      return failure(res, 405, `Method ${method} is not allowed here; use ${allow}`, { allow });
    }

    const { route } = hit;
    const params = hit.params!;
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
        return (
          (route.variables[name]?.({ params, query: searchParams, body: undefined }) as number | undefined) ?? null
        );
      } catch (err) {
        pathError ??= err instanceof Error ? err : new AppError('BAD_REQUEST', String(err));
        return null;
      }
    };
    const ids = { orgId: pathId('orgId'), eventId: pathId('eventId') };
    // The gateway's check of a caller for a route, without its work (see `authorize` in the events subgraph).
    const authorize = async () =>
      throwOnError(await opts.gateway.execute(AuthorizeDocument, { operation: hit.rootField, ...ids }, headers));

    const contentType = req.headers['content-type'] ?? '';
    const uploading = Boolean(route.uploads) && /^multipart\/form-data/i.test(contentType);
    let upload: MultipartBody | undefined;
    try {
      let prepared: PreparedOperation;
      if (uploading) {
        await authorize();
        if (pathError) throw pathError;
        const { fields, single, selfie } = route.uploads!;
        upload = await readMultipart(req, {
          maxFileBytes: selfie ? opts.uploadLimits.selfieMaxBytes : opts.uploadLimits.maxFileBytes,
          maxFiles: opts.uploadLimits.maxFiles,
          fileFields: fields,
          oneFile: single,
        });
        prepared = route.prepare({ params, query: searchParams, body: upload.fields });
      } else {
        try {
          const raw = await readBody(req, opts.bodyLimitBytes);
          const body = route.method === 'POST' ? parseJsonBody(raw, contentType) : undefined;
          prepared = route.prepare({ params, query: searchParams, body });
        } catch (err) {
          if (err instanceof AppError && err.status < 500) await authorize();
          throw err;
        }
      }
      // The version is read before the operation: an answer is never tagged with a version newer than its content.
      const eventId = route.validator === 'event' ? ids.eventId : null;
      const version = eventId !== null ? await opts.contentVersions?.current(eventId) : null;
      const etag = version ? versionTag(version, route, prepared.variables) : null;
      // The caller still passes every check the operation would make (credential, rate limit, flags) before a 304.
      const authorizeAgain = async () => {
        const grant = opts.readGrants?.keyOf({
          headers,
          operation: hit.rootField,
          ...ids,
          eventId: eventId!,
          version: version!,
        });
        if (grant && (await opts.readGrants!.charge(grant))) return;
        if (!grant) return authorize();
        const answer = await opts.gateway.executeForGrant(
          AuthorizeDocument,
          { operation: hit.rootField, ...ids },
          headers,
        );
        throwOnError(answer.result);
        if (answer.grant) opts.readGrants!.keep(grant, answer.grant);
      };
      const current = etag && noneMatchHit(req.headers['if-none-match'], etag);
      if (current) {
        await authorizeAgain();
        return sendNotModified(res, current);
      }
      const kept = etag && route.shared ? opts.sharedReads?.get(etag) : undefined;
      if (kept) {
        await authorizeAgain();
        return sendCacheable(req, res, kept, etag);
      }
      const files = upload?.files.length ? upload.files : null;
      const run: OperationRunner = async (document, variables) => {
        const result = files
          ? await opts.gateway.executeWithFiles(document, variables, route.uploads!, files, headers)
          : await opts.gateway.execute(document, variables, headers);
        return throwOnError(result, (errors) =>
          opts.logger.error({ requestId, errors, route: route.path }, 'operation failed'),
        );
      };
      const data = await prepared.answer(run);
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
    } finally {
      await upload?.cleanup();
    }
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err) => {
      if (err instanceof AppError) {
        const retryAfter = err.details?.retryAfterSeconds;
        return refuse(
          req,
          res,
          err.status,
          err.message,
          retryAfter ? { 'retry-after': String(Number(retryAfter)) } : {},
        );
      }
      opts.logger.error({ err }, 'unexpected adapter failure');
      refuse(req, res, 500, 'Internal error');
    });
  };
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
