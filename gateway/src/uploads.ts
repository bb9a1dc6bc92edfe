import { randomUUID } from 'node:crypto';
import { Upload } from 'graphql-upload-minimal';

/**
 * Files of a GraphQL multipart request travel on to the subgraph that owns the field: while the
 * gateway plans the operation, each `Upload` in the variables is swapped for a marker string; the
 * fetcher turns a request with markers back into a multipart request (the GraphQL multipart
 * request spec) carrying the files.
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

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/** A fetch for subgraph calls that sends marked uploads as multipart (other calls go to `plain`). */
export function uploadAwareFetch(init: { body?: unknown; headers?: Record<string, string> }, url: string, plain: (url: string, init: never) => Promise<unknown> = fetch as never): Promise<Response> {
  const body = typeof init.body === 'string' ? init.body : '';
  if (!body.includes('\\u0000upload:')) return plain(url, init as never) as Promise<Response>;
  return (async () => {
    const request = JSON.parse(body);
    const markers: Array<{ path: string; id: string }> = [];
    request.variables = findMarkers(request.variables, 'variables', markers);
    const form = new FormData();
    form.append('operations', JSON.stringify(request));
    form.append('map', JSON.stringify(Object.fromEntries(markers.map((m, i) => [String(i), [m.path]]))));
    try {
      for (const [i, marker] of markers.entries()) {
        const upload = pending.get(marker.id);
        if (!upload) throw new Error('upload no longer available');
        const file = await upload.promise;
        const content = await readAll(file.createReadStream());
        form.append(String(i), new Blob([content], { type: file.mimetype || 'application/octet-stream' }), file.filename);
      }
    } finally {
      for (const marker of markers) pending.delete(marker.id);
    }
    const headers = { ...(init.headers ?? {}) };
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-type' || name.toLowerCase() === 'content-length') delete headers[name];
    // Apollo's CSRF rule for multipart requests to subgraphs.
    headers['apollo-require-preflight'] = 'true';
    return fetch(url, { method: 'POST', headers, body: form });
  })();
}
