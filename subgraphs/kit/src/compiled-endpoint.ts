import { Logger, PRINCIPAL_HEADER, ServiceMetrics, verifyPrincipal } from '@em/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CompiledOperations } from './compiled-operations';
import { isPlainJsonPost, readJsonBody } from './json-request';

/** The largest JSON body a subgraph reads (the compiled path and Apollo's). */
export const JSON_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

export interface CompiledEndpointOptions {
  operations: CompiledOperations;
  principalSecret: string;
  metrics: ServiceMetrics;
  logger: Logger;
  /** Runs the operation in the request's own MikroORM context. */
  inRequestContext: <T>(run: () => T) => T;
}

/**
 * Set on a compiled answer that is `{"data": {...}}` and nothing else (no errors, no extensions):
 * the gateway's single-fetch path forwards such an answer without parsing it.
 */
export const DATA_ONLY_HEADER = 'x-em-data-only';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * `POST /graphql` with a JSON body, answered by compiled operations in front of express and
 * Apollo. A request it does not take (another path or content type, a body over the limit or not
 * JSON, no valid principal, an operation CompiledOperations leaves to Apollo) goes to `fallback`
 * with its body already read into `req.body`, where express and Apollo answer it as before.
 */
export function compiledEndpoint(opts: CompiledEndpointOptions, fallback: Handler): Handler {
  return (req, res) => {
    if (!isPlainJsonPost(req, '/graphql', JSON_BODY_LIMIT_BYTES)) return fallback(req, res);
    readJsonBody(req)
      .then((body) => (body === undefined ? false : answer(opts, req, res, body)))
      .then(
        (answered) => answered || fallback(req, res),
        (err) => {
          opts.logger.error({ err }, 'compiled operation failed unexpectedly');
          if (!res.headersSent)
            res
              .writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
              .end('{"errors":[{"message":"Internal error","extensions":{"code":"INTERNAL"}}]}\n');
        },
      );
  };
}

async function answer(
  opts: CompiledEndpointOptions,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<boolean> {
  let principal;
  try {
    principal = verifyPrincipal(header(req, PRINCIPAL_HEADER), opts.principalSecret);
  } catch {
    return false; // Apollo's context answers 401
  }
  const started = Date.now();
  const requestId = header(req, 'x-request-id') ?? principal.requestId ?? '';
  const result = await opts.inRequestContext(() => opts.operations.run(body, { principal, requestId }));
  if (!result) return false;
  const status = result.errorCode ?? 'ok';
  opts.metrics.startRequest(result.label)(status);
  const entry = { requestId, operation: result.label, status, ms: Date.now() - started };
  if (status === 'ok') opts.logger.debug(entry, 'operation');
  else opts.logger.warn({ ...entry, error: result.firstError }, 'operation failed');
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(result.body),
  };
  res.writeHead(200, result.dataOnly ? { ...headers, [DATA_ONLY_HEADER]: '1' } : headers);
  res.end(result.body);
  return true;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
