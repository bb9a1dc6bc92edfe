import type { IncomingMessage } from 'node:http';

/**
 * Is this a request a compiled path may read itself: `POST <path>` with a plain JSON body
 * (`application/json`, utf-8, not compressed) of a declared length within `limitBytes`? Anything
 * else is left to express and its body parser, untouched.
 */
export function isPlainJsonPost(req: IncomingMessage, path: string, limitBytes: number): boolean {
  if (req.method !== 'POST' || req.url !== path || req.headers['content-encoding'] !== undefined) return false;
  if (!/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(req.headers['content-type'] ?? '')) return false;
  const declared = Number(req.headers['content-length']);
  return declared >= 0 && declared <= limitBytes;
}

/**
 * The request's body as JSON, with express.json's strictness (an object or an array); undefined
 * when it is not. A request read here keeps its value in `req.body`: body-parser then sees a
 * finished request and leaves it as it is, so express and Apollo can still answer it.
 */
export function readJsonBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        // eslint-disable-next-line no-control-regex -- JSON's own whitespace (RFC 8259) before the value
        body = /^[\x20\x09\x0a\x0d]*[{[]/.test(text) ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      (req as IncomingMessage & { body?: unknown }).body = body;
      resolve(body);
    });
  });
}
