import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MultipartFilePart, postMultipart } from '@em/core';
import { FileUpload, Upload } from 'graphql-upload-minimal';

/**
 * Files of a GraphQL multipart request travel on to the subgraph that owns the field: while the
 * gateway plans the operation, each `Upload` in the variables is swapped for a marker string; the
 * fetcher turns a request with markers back into a multipart request (the GraphQL multipart
 * request spec) carrying the files. The operation was authorised before (see authorize-uploads.ts);
 * each file streams from the client to a 0600 temp file of the request, and from there to the
 * subgraph chunk by chunk (postMultipart): never whole in the gateway's memory.
 */
const MARKER = '\u0000upload:';
const pending = new Map<string, Upload>();

export function markUploads<T>(value: T): T {
  if (value instanceof Upload) {
    const id = randomUUID();
    pending.set(id, value);
    return `${MARKER}${id}` as unknown as T;
  }
  if (Array.isArray(value)) return value.map(markUploads) as unknown as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, markUploads(v)])) as T;
  }
  return value;
}

function findMarkers(value: unknown, path: string, out: Array<{ path: string; id: string }>): unknown {
  if (typeof value === 'string' && value.startsWith(MARKER)) {
    out.push({ path, id: value.slice(MARKER.length) });
    return null;
  }
  if (Array.isArray(value)) return value.map((v, i) => findMarkers(v, `${path}.${i}`, out));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, findMarkers(v, `${path}.${k}`, out)]));
  }
  return value;
}

class FileTooLarge extends Error {}

/** Streams an upload to `target`; a file over the upload limit (busboy's `limit`) stops at once. */
async function spool(file: FileUpload, target: string): Promise<void> {
  const stream = file.createReadStream() as Readable;
  await new Promise<void>((resolve, reject) => {
    stream.once('limit', () => reject(new FileTooLarge(`${file.filename} is larger than the upload limit`)));
    pipeline(stream, createWriteStream(target, { mode: 0o600 })).then(resolve, reject);
  });
}

/** A subgraph-style answer refusing the operation (Apollo passes its code on to the client). */
function refusal(code: string, message: string): Response {
  return new Response(JSON.stringify({ data: null, errors: [{ message, extensions: { code } }] }), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
}

/** A fetch for subgraph calls that sends marked uploads as multipart (other calls go to `plain`). */
export function uploadAwareFetch(
  init: { body?: unknown; headers?: Record<string, string> },
  url: string,
  plain: (url: string, init: never) => Promise<unknown> = fetch,
): Promise<Response> {
  const body = typeof init.body === 'string' ? init.body : '';
  if (!body.includes('\\u0000upload:')) return plain(url, init as never) as Promise<Response>;
  return (async () => {
    const request = JSON.parse(body) as { variables?: unknown };
    const markers: Array<{ path: string; id: string }> = [];
    request.variables = findMarkers(request.variables, 'variables', markers);
    const fields: Array<[string, string]> = [
      ['operations', JSON.stringify(request)],
      ['map', JSON.stringify(Object.fromEntries(markers.map((m, i) => [String(i), [m.path]])))],
    ];
    const files: MultipartFilePart[] = [];
    const dir = await mkdtemp(path.join(tmpdir(), 'em-gateway-upload-'));
    try {
      for (const [i, marker] of markers.entries()) {
        const upload = pending.get(marker.id);
        if (!upload) throw new Error('upload no longer available');
        const file = await upload.promise;
        const target = path.join(dir, String(i));
        await spool(file, target);
        files.push({ field: String(i), path: target, fileName: file.filename, mimeType: file.mimetype });
      }
      // Apollo's CSRF rule for multipart requests to subgraphs.
      const headers = { ...(init.headers ?? {}), 'apollo-require-preflight': 'true' };
      // The subgraph answers once it has read the files: the temp files can go then.
      const answer = await postMultipart(url, { headers, fields, files }).catch((err: Error) => {
        throw new Error(`fetch failed: ${err.message}`);
      });
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : String(value));
      }
      return new Response(answer.body, { status: answer.status, headers: responseHeaders });
    } catch (err) {
      if (err instanceof FileTooLarge) return refusal('PAYLOAD_TOO_LARGE', err.message);
      if ((err as { status?: number }).status === 413)
        return refusal('PAYLOAD_TOO_LARGE', 'A file is larger than the upload limit');
      throw err;
    } finally {
      for (const marker of markers) pending.delete(marker.id);
      await rm(dir, { recursive: true, force: true });
    }
  })();
}
