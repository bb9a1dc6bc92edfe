import { Logger, PRINCIPAL_HEADER, ServiceMetrics, verifyPrincipal } from '@em/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CompiledOperations } from './compiled-operations';

/** The largest JSON body the compiled path reads (the Apollo path's limit too). */
export const JSON_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

export interface CompiledEndpointOptions {
  operations: CompiledOperations;
  principalSecret: string;
  metrics: ServiceMetrics;
  logger: Logger;
  /** Runs the operation in the request's own MikroORM context. */
  inRequestContext: <T>(run: () => T) => T;
}

/**
 * `POST /graphql` with a JSON body, answered by compiled operations in front of express and
 * Apollo. A request it does not take (another path or content type, a body over the limit, no
 * valid principal, an operation CompiledOperations leaves to Apollo) goes to `fallback` with its
 * body already read into `req.body`, where Apollo answers it as before.
 */
export function compiledEndpoint(opts: CompiledEndpointOptions, fallback: (req: IncomingMessage, res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'POST' || req.url !== '/graphql' || !/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) return fallback(req, res);
    const declared = Number(req.headers['content-length']);
    if (!(declared <= JSON_BODY_LIMIT_BYTES)) return fallback(req, res);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return void res.writeHead(400, JSON_HEADERS).end('{"errors":[{"message":"The body is not valid JSON","extensions":{"code":"BAD_REQUEST"}}]}\n');
      }
      answer(opts, req, res, body).then(
        (answered) => answered || fallbackWithBody(req, res, body, fallback),
        (err) => {
          opts.logger.error({ err }, 'compiled operation failed unexpectedly');
          if (!res.headersSent) res.writeHead(500, JSON_HEADERS).end('{"errors":[{"message":"Internal error","extensions":{"code":"INTERNAL"}}]}\n');
        },
      );
    });
  };
}

async function answer(opts: CompiledEndpointOptions, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<boolean> {
  let principal;
  try {
    principal = verifyPrincipal(header(req, PRINCIPAL_HEADER), opts.principalSecret);
  } catch {
    return false; // Apollo's context answers 401
  }
  const started = Date.now();
  const requestId = header(req, 'x-request-id') ?? principal.requestId ?? '';
  const context = { principal, requestId };
  const result = await opts.inRequestContext(() => opts.operations.run(body, context));
  if (!result) return false;
  const status = result.errorCode ?? 'ok';
  opts.metrics.startRequest(result.label)(status);
  const entry = { requestId, operation: result.label, status, ms: Date.now() - started };
  if (status === 'ok') opts.logger.debug(entry, 'operation');
  else opts.logger.warn({ ...entry, error: result.firstError }, 'operation failed');
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(result.body) });
  res.end(result.body);
  return true;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Hands a request whose body is read to express: body-parser sees a finished request and keeps `req.body`. */
function fallbackWithBody(req: IncomingMessage, res: ServerResponse, body: unknown, fallback: (req: IncomingMessage, res: ServerResponse) => void): void {
  (req as IncomingMessage & { body?: unknown }).body = body;
  fallback(req, res);
}
