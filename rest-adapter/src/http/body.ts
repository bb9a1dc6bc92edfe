import { AppError, jsonDepthExceeds, MAX_JSON_DEPTH } from '@em/core';
import { IncomingMessage } from 'node:http';

const EMPTY = Buffer.alloc(0);

/** Reads a request body up to `limit` bytes; a larger body is a 413, and reading stops there. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 6.3): nothing to wait for.
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)
    return Promise.resolve(EMPTY);
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      return reject(new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** JSON bodies: an empty body is undefined, malformed JSON a 400. */
export function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  if (contentType && !/^application\/(.+\+)?json\b/i.test(contentType.trim())) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON (Content-Type: application/json)');
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('BAD_REQUEST', 'The request body is not valid JSON');
  }
  if (jsonDepthExceeds(body))
    throw new AppError('BAD_REQUEST', `The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  return body;
}
