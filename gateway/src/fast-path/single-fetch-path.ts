import {
  clientAddress,
  Logger,
  PRINCIPAL_HEADER,
  RATE_GRANT_HEADER,
  RateGrant,
  rateGrantOf,
  ServiceMetrics,
  TrustProxy,
} from '@em/core';
import { DATA_ONLY_HEADER, isPlainJsonPost, readJsonBody } from '@em/subgraph-kit';
import { getVariableValues } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayContext } from '../context';
import { chargeCaller } from '../rate-limit-plugin';
import { carriedContexts, contextOf, RequestContextDeps } from '../request-context';
import { requestIdFrom } from '../request-id';
import { carriedResponses, RawSubgraphResponse, SubgraphFetcher } from '../subgraph-fetcher';
import { FAST_PATH_MAX_QUERY_CHARS, SingleFetchPlans } from './single-fetch-plans';

export { FAST_PATH_MAX_QUERY_CHARS };

export interface SingleFetchPathOptions {
  context: RequestContextDeps;
  plans: SingleFetchPlans;
  subgraphUrls: Record<string, string>;
  subgraphs: SubgraphFetcher;
  trustProxy: TrustProxy;
  metrics: ServiceMetrics;
  logger: Logger;
  bodyLimitBytes: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * `POST /graphql` in front of express and Apollo, for queries whose answer is one subgraph's
 * answer (SingleFetchPlans): the same context (authentication, NUL screen, signed principal), the
 * same read charge, the same subgraph operation, and the subgraph's `data` forwarded without
 * Apollo's request pipeline or its re-shaping of the result. As in Apollo's path, the caller is
 * known before its operation is parsed or planned, and an operation text over
 * FAST_PATH_MAX_QUERY_CHARS is left to Apollo untouched.
 *
 * Every other request goes on to express and Apollo as before: other operations, variables that
 * do not coerce (before anything is charged), and any request that ends in an error: a refused
 * credential, a spent budget, a subgraph answer with errors or not 200. Those carry what was done
 * already (the context or its error, the charge, the subgraph's answer), so Apollo words the
 * answer exactly as always, without authenticating, charging or calling the subgraph twice.
 */
export function singleFetchPath(opts: SingleFetchPathOptions, fallback: Handler): Handler {
  return (req, res) => {
    if (!isPlainJsonPost(req, '/graphql', opts.bodyLimitBytes)) return fallback(req, res);
    readJsonBody(req)
      .then((body) => (body === undefined ? notJson(res) : serve(opts, req, res, body, fallback)))
      .catch((err) => {
        opts.logger.error({ err }, 'single-fetch path failed unexpectedly');
        if (!res.headersSent)
          res
            .writeHead(500, JSON_HEADERS)
            .end('{"errors":[{"message":"Internal error","extensions":{"code":"INTERNAL"}}]}\n');
      });
  };
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

/** As graphqlBodyErrors answers a body express.json cannot parse. */
function notJson(res: ServerResponse): void {
  res.writeHead(400, JSON_HEADERS).end(
    JSON.stringify({
      errors: [{ message: 'The request body is not valid JSON', extensions: { code: 'BAD_REQUEST' } }],
    }),
  );
}

async function serve(
  opts: SingleFetchPathOptions,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  fallback: Handler,
): Promise<void> {
  const request = plainRequest(body);
  if (!request || (request.operationName?.length ?? 0) + request.query.length >= FAST_PATH_MAX_QUERY_CHARS)
    return fallback(req, res);

  const requestId = requestIdFrom(header(req, 'x-request-id'));
  res.setHeader('x-request-id', requestId);
  const clientIp = clientAddress(req, opts.trustProxy);
  let context;
  try {
    const facts = {
      origin: header(req, 'origin'),
      referer: header(req, 'referer'),
      apiKey: header(req, 'x-api-key'),
      authorization: header(req, 'authorization'),
    };
    context = await contextOf(opts.context, {
      ...facts,
      requestId,
      clientIp,
      body,
      query: request.query,
    });
  } catch (error) {
    carriedContexts.set(req, { error });
    return fallback(req, res);
  }
  carriedContexts.set(req, { context });
  const plan = opts.plans.planOf(request.query, request.operationName ?? undefined);
  if (!plan) return fallback(req, res);
  const variables = request.variables ?? {};
  if (getVariableValues(opts.plans.schema, plan.operation.variableDefinitions ?? [], variables).errors)
    return fallback(req, res);

  const decision = await chargeCaller(opts.context.limiter, context, { cls: 'read', units: 1 });
  carriedContexts.set(req, { context: { ...context, precharged: decision } });
  if (!decision.allowed) return fallback(req, res);

  const done = opts.metrics.startRequest(plan.label);
  const started = Date.now();
  const url = opts.subgraphUrls[plan.serviceName];
  const used: Record<string, unknown> = {};
  for (const name of plan.variableUsages) if (variables[name] !== undefined) used[name] = variables[name];
  let response: RawSubgraphResponse;
  try {
    response = await opts.subgraphs.request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [PRINCIPAL_HEADER]: context.principalToken,
        'x-request-id': requestId,
      },
      body: JSON.stringify({ query: plan.subgraphQuery, variables: used, operationName: plan.subgraphOperationName }),
    });
  } catch {
    return fallback(req, res); // Apollo calls again and words the failure
  }
  if (!onlyData(response)) return carriedResponses.run({ url, response, used: false }, () => fallback(req, res));
  done('ok');
  opts.logger.debug({ requestId, operation: plan.label, status: 'ok', ms: Date.now() - started }, 'operation');
  const text = response.body.endsWith('\n') ? response.body : `${response.body}\n`;
  const grant = header(req, RATE_GRANT_HEADER) === 'read' && context.principal.kind === 'api_key';
  res.writeHead(200, {
    'cache-control': 'no-store',
    ...JSON_HEADERS,
    'content-length': Buffer.byteLength(text),
    // The caller's own read budget, asked by the REST adapter to charge revalidations it answers alone.
    ...(grant ? { [RATE_GRANT_HEADER]: JSON.stringify(readGrantOf(opts.context, context, clientIp)) } : {}),
  });
  res.end(text);
}

/** The caller's read grant, with the throttle the adapter checks too, and whether it holds for any client address. */
function readGrantOf(deps: RequestContextDeps, context: GatewayContext, clientIp: string | undefined): RateGrant {
  return {
    ...rateGrantOf(deps.limiter, 'read', context),
    failures: { ...deps.failedAuth.rule, ...(clientIp ? { address: clientIp } : {}) },
    ...(context.anyAddress ? { anyAddress: context.anyAddress } : {}),
  };
}

/** A 200 whose JSON is `{"data": {...}}` and nothing else: no errors, no extensions (said by a compiled subgraph answer, else read). */
function onlyData(response: RawSubgraphResponse): boolean {
  if (response.status !== 200 || !response.body.startsWith('{"data":{')) return false;
  if (response.headers[DATA_ONLY_HEADER] === '1') return true;
  try {
    const parsed = JSON.parse(response.body) as Record<string, unknown>;
    const keys = Object.keys(parsed);
    return keys.length === 1 && typeof parsed.data === 'object' && parsed.data !== null;
  } catch {
    return false;
  }
}

interface PlainRequest {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

function plainRequest(body: unknown): PlainRequest | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { query, operationName, variables, extensions } = body as Record<string, unknown>;
  if (typeof query !== 'string' || extensions !== undefined) return null;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return null;
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables)))
    return null;
  return body as PlainRequest;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
