import { ERROR_STATUS } from '@em/core';
import { ParamDoc } from '../http/params';
import { RouteDef } from '../routes';
import { SCHEMAS } from './schemas';

export const API_PREFIX = '/api/v1/ext';

/** Error statuses every route can answer, and those particular to some routes. */
const COMMON_ERRORS = [400, 401, 403, 404, 429, 500, 503];
const ERROR_REASONS: Record<number, string> = {
  400: 'Invalid input (see the message)',
  401: 'Credentials missing (or an invalid bearer token)',
  403: 'Key, organisation, event, host or feature flag refused',
  404: 'Not found',
  405: 'Method not allowed on this path',
  413: 'Body or file too large',
  415: 'Body is not JSON',
  422: 'from / to missing or not integers',
  429: 'Rate limit exceeded; see Retry-After',
  500: 'Internal failure',
  503: 'A dependency is unavailable; retry',
};
/** What a status means on particular operations, where it says more than the common reason. */
const NOT_RECORDED =
  'Internal failure: face matching did not answer in time, nothing was recorded; retry with the same request_id';
const SELFIE_UNAVAILABLE =
  'Face matching cannot take a selfie now, nothing was recorded: the ml-worker is loading its models, or the ' +
  'selfies queued ahead would keep this one waiting past the embedding timeout (a surge). Retry after Retry-After ' +
  'seconds with the same request_id';
const OPERATION_ERROR_REASONS: Record<string, Record<number, string>> = {
  SearchFaces: { 500: NOT_RECORDED, 503: SELFIE_UNAVAILABLE },
  StartVideoClipping: { 500: NOT_RECORDED, 503: SELFIE_UNAVAILABLE },
};
const RETRY_AFTER_HEADER = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
};

/** What a route with a validator documents: If-None-Match, 304, and the headers of its 200. */
const VALIDATOR_DOCS = {
  event:
    "ETag from the event's content version (changed when photos are published, hidden, deleted or their BIBs change, or a setting changes), the organisation and the query: a matching If-None-Match is answered 304 without the work, after the same credential, rate-limit and flag checks.",
  body: 'ETag from the answer itself: a matching If-None-Match is answered 304 (the work is done; the transfer is saved).',
};
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'ETags of copies the client holds; 304 when one is current.',
};
const CACHING_HEADERS = {
  ETag: {
    description: "Strong validator of this answer (a compressed answer's tag ends in -br or -gzip).",
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description: '`private, no-cache`: a browser may keep the answer but revalidates it each time.',
    schema: { type: 'string' },
  },
  'Content-Encoding': {
    description: 'br or gzip by Accept-Encoding, for answers of 1 KiB and more.',
    schema: { type: 'string' },
  },
};

/**
 * The OpenAPI 3.1 document of the REST interface, built from the route table: its paths and
 * parameters from the routes' readers, bodies from their body readers and uploads, responses
 * from their `response` component and the error statuses.
 */
export function buildOpenApiDocument(routes: RouteDef[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const docs = Object.values(route.variables).flatMap((read) => read.doc);
    let path = route.path;
    for (const d of docs.filter((p) => p.in === 'path')) path = path.replace(`:${d.segment}`, `{${d.name}}`);
    const errors = [...COMMON_ERRORS, ...routeErrors(route, docs)].sort((a, b) => a - b);
    const operationId = route.operationName;
    const operation: Record<string, unknown> = {
      operationId,
      summary: route.summary,
      ...(route.validator ? { description: VALIDATOR_DOCS[route.validator] } : {}),
      parameters: [
        ...docs
          .filter((d) => d.in !== 'body')
          .map((d) => ({
            name: d.name,
            in: d.in,
            required: d.required ?? false,
            schema: d.schema,
            ...(d.description ? { description: d.description } : {}),
          })),
        ...(route.validator ? [IF_NONE_MATCH] : []),
      ],
      responses: {
        ...(route.validator
          ? {
              304: {
                description: 'Not modified: the copy named in If-None-Match is current (no body)',
                headers: CACHING_HEADERS,
              },
            }
          : {}),
        200: {
          description: route.summary,
          ...(route.validator ? { headers: CACHING_HEADERS } : {}),
          content: {
            'application/json': {
              schema: {
                allOf: [
                  { $ref: '#/components/schemas/Envelope' },
                  { properties: { data: { $ref: `#/components/schemas/${route.response}` } } },
                ],
              },
            },
          },
        },
        ...Object.fromEntries(
          errors.map((status) => [
            status,
            errorResponse(status, operationId ? OPERATION_ERROR_REASONS[operationId]?.[status] : undefined),
          ]),
        ),
      },
    };
    const body = requestBody(
      route,
      docs.filter((d) => d.in === 'body'),
    );
    if (body) operation.requestBody = body;
    paths[`${API_PREFIX}${path}`] = {
      ...(paths[`${API_PREFIX}${path}`] ?? {}),
      [route.method.toLowerCase()]: operation,
    };
  }
  const statuses = Object.values(ERROR_STATUS).filter((s) => ERROR_REASONS[s]);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Event photo & video discovery API',
      version,
      description:
        'Every response has the envelope { responseType, message, data }; data is null on errors and the HTTP status carries the error type.',
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }, { bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'OAuth access token (the account endpoint; events:read)',
        },
      },
      schemas: SCHEMAS,
      responses: Object.fromEntries(
        [...new Set([...statuses, 405])].map((s) => [
          `Error${s}`,
          {
            description: ERROR_REASONS[s],
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
          },
        ]),
      ),
    },
  };
}

function errorResponse(status: number, particular: string | undefined): Record<string, unknown> {
  if (!particular) return { $ref: `#/components/responses/Error${status}` };
  return {
    description: particular,
    ...(status === 503 ? { headers: RETRY_AFTER_HEADER } : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
  };
}

function routeErrors(route: RouteDef, docs: ParamDoc[]): number[] {
  const out: number[] = [];
  if (route.method === 'POST') out.push(413, 415);
  if (docs.some((d) => d.in === 'query' && d.required)) out.push(422);
  return out;
}

function requestBody(route: RouteDef, fields: ParamDoc[]): Record<string, unknown> | null {
  if (!route.uploads && fields.length === 0) return null;
  const properties = Object.fromEntries(
    fields.map((f) => [f.name, { ...f.schema, ...(f.description ? { description: f.description } : {}) }]),
  );
  const content: Record<string, unknown> = {};
  if (route.uploads) {
    const file = { type: 'string', format: 'binary' };
    const files = Object.fromEntries(
      route.uploads.fields.map((name) => [
        name,
        route.uploads!.single ? file : { oneOf: [file, { type: 'array', items: file }] },
      ]),
    );
    const textFields = Object.fromEntries(
      fields
        .filter((f) => f.schema.type !== 'array')
        .map((f) => [f.name, { type: 'string', ...(f.description ? { description: f.description } : {}) }]),
    );
    content['multipart/form-data'] = { schema: { type: 'object', properties: { ...files, ...textFields } } };
  }
  if (fields.length && !route.uploads?.single) content['application/json'] = { schema: { type: 'object', properties } };
  return { required: false, content };
}
