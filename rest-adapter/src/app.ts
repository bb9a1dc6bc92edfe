import { AppError, clientAddress, DependencyCheck, httpStatusOf, Logger, newId, normaliseErrorCode, operatorEndpoint, ServiceMetrics, TrustProxy } from '@em/core';
import { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayClient } from './gateway-client';
import { parseJsonBody, readBody } from './http/body';
import { failure, success } from './http/envelope';
import { MultipartFile, readMultipart } from './http/multipart';
import { readVariables } from './http/params';
import { compilePath } from './http/router';
import { serveDocs } from './openapi/docs';
import { API_PREFIX, buildOpenApiDocument } from './openapi/document';
import { RouteDef } from './routes';

export { API_PREFIX };


/** Request headers the gateway needs: credentials, the caller's site, and tracing. */
const FORWARDED_HEADERS = ['x-api-key', 'authorization', 'origin', 'referer', 'user-agent'];

export interface AdapterOptions {
  routes: RouteDef[];
  gateway: GatewayClient;
  bodyLimitBytes: number;
  uploadLimits: { maxFileBytes: number; maxFiles: number };
  logger: Logger;
  /** Version reported in the OpenAPI document. */
  version: string;
  metrics: ServiceMetrics;
  /** What readiness checks (the gateway). */
  checks: DependencyCheck[];
  /** Which peers' X-Forwarded-For is believed (TRUST_PROXY). */
  trustProxy: TrustProxy;
}

/**
 * The REST compatibility layer: matches a route of the table, reads its variables, runs its
 * GraphQL operation on the gateway and answers in the spec's envelope, with the HTTP status of
 * the error code when the operation fails. It holds no business rule.
 */
export function createRestHandler(opts: AdapterOptions) {
  const compiled = opts.routes.map((route) => ({ route, path: compilePath(route.path) }));
  const openApi = buildOpenApiDocument(opts.routes, opts.version);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The request target is split by hand: WHATWG URL parsing would read `//host/...` as a host.
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const pathname = queryAt < 0 ? target : target.slice(0, queryAt);
    const searchParams = new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1));
    const method = (req.method ?? 'GET').toUpperCase();
    const operator = method === 'GET' && !pathname.startsWith(API_PREFIX) ? await operatorEndpoint(pathname, opts.metrics, opts.checks) : null;
    if (operator) return void res.writeHead(operator.status, { 'content-type': operator.contentType }).end(operator.body);
    if (method === 'GET' && (await serveDocs(pathname, openApi, res))) return;
    if (!pathname.startsWith(`${API_PREFIX}/`)) return failure(res, 404, `Unknown route: ${method} ${pathname.slice(0, 200)}`);
    const path = pathname.slice(API_PREFIX.length);

    const candidates = compiled.map((c) => ({ ...c, params: c.path.match(path) })).filter((c) => c.params);
    if (candidates.length === 0) return failure(res, 404, `Unknown route: ${method} ${pathname.slice(0, 200)}`);
    const hit = candidates.find((c) => c.route.method === method || (method === 'HEAD' && c.route.method === 'GET'));
    if (!hit) {
      const allow = [...new Set(candidates.map((c) => c.route.method))].join(', ');
      req.resume();
      return failure(res, 405, `Method ${method} is not allowed here; use ${allow}`, { allow });
    }

    const { route } = hit;
    const done = opts.metrics.startRequest(`${route.method} ${route.path}`);
    res.on('finish', () => done(res.statusCode));
    const contentType = req.headers['content-type'] ?? '';
    let body: unknown;
    let files: MultipartFile[] = [];
    if (route.uploads && /^multipart\/form-data/i.test(contentType)) {
      const multipart = await readMultipart(req, { ...opts.uploadLimits, fileFields: route.uploads.fields });
      body = multipart.fields;
      files = multipart.files;
      if (route.uploads.single && files.length > 1) throw new AppError('BAD_REQUEST', `Send one file only (field "${route.uploads.fields[0]}")`);
    } else {
      const raw = await readBody(req, opts.bodyLimitBytes);
      body = route.method === 'POST' ? parseJsonBody(raw, contentType) : undefined;
    }
    const variables = readVariables(route.variables, { params: hit.params!, query: searchParams, body });

    const requestId = requestIdOf(req);
    res.setHeader('x-request-id', requestId);
    const headers: Record<string, string> = { 'x-request-id': requestId };
    for (const name of FORWARDED_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    // The gateway trusts this adapter's X-Forwarded-For: it names the client address resolved here
    // (through TRUST_PROXY), never a chain a client wrote.
    headers['x-forwarded-for'] = clientAddress(req, opts.trustProxy);

    const result = files.length
      ? await opts.gateway.executeWithFiles(route.operation, variables, route.uploads!, files, headers)
      : await opts.gateway.execute(route.operation, variables, headers);
    const error = result.errors?.[0];
    if (error || !result.data) {
      const code = normaliseErrorCode(error?.extensions?.code);
      if (code === 'INTERNAL') opts.logger.error({ requestId, errors: result.errors, route: route.path }, 'operation failed');
      const retryAfter = error?.extensions?.retryAfterSeconds;
      return failure(res, httpStatusOf(code), error?.message ?? 'Internal error', retryAfter ? { 'retry-after': String(retryAfter) } : {});
    }
    return success(res, `${route.summary}: ok`, route.data(result.data));
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err) => {
      if (err instanceof AppError) return failure(res, err.status, err.message);
      opts.logger.error({ err }, 'unexpected adapter failure');
      if (!res.headersSent) failure(res, 500, 'Internal error');
    });
  };
}

function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : newId();
}
