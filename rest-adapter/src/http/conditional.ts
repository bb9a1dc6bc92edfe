import { createHash } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { LruMap } from '@em/core';
import { Envelope } from './envelope';

/**
 * Conditional GETs and compressed JSON. An answer depends on the caller's credential (the org it
 * may read, rate limits, flags): `private, no-cache` lets a browser keep it but revalidate each
 * time, and a shared cache never serves it to someone else.
 */
export const CACHE_CONTROL = 'private, no-cache';
/** The answer differs by these request headers (a browser's cache must not mix keys or encodings). */
export const VARY = 'Accept-Encoding, X-API-Key, Authorization';
/** Below this, compression costs more than the bytes it saves. */
export const COMPRESS_MIN_BYTES = 1024;

type Encoding = 'br' | 'gzip' | 'identity';

/** A strong validator from what the answer depends on: `"<22 base64url chars>"`. */
export function entityTag(parts: ReadonlyArray<string | number>): string {
  return `"${createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 22)}"`;
}

/**
 * The tag of `If-None-Match` that names this one (RFC 9110's weak comparison, as If-None-Match
 * uses), or null. `*` is not taken: whether the resource exists is known only by running it. The tag of a compressed answer carries its coding (`"...-br"`),
 * so the same content in another coding still matches; the 304 repeats the client's tag.
 */
export function noneMatchHit(header: string | string[] | undefined, etag: string): string | null {
  if (!header) return null;
  const value = Array.isArray(header) ? header.join(',') : header;
  // A header of absurd length is not parsed (it would only cost CPU): treated as no match.
  if (value.length > 4096) return null;
  const wanted = opaque(etag);
  for (const raw of value.split(',')) {
    const tag = raw.trim().replace(/^W\//, '');
    if (/^"[\w-]{1,64}"$/.test(tag) && opaque(tag) === wanted) return tag;
  }
  return null;
}

function opaque(tag: string): string {
  return tag.replace(/^"(.*?)(?:-(?:br|gzip))?"$/, '$1');
}

/** The coding to answer with: brotli, else gzip, else none (q=0 refuses a coding). */
export function chooseEncoding(header: string | string[] | undefined): Encoding {
  const value = (Array.isArray(header) ? header.join(',') : (header ?? '')).toLowerCase();
  if (!value || value.length > 1024) return 'identity';
  const accepted = new Set<string>();
  for (const part of value.split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) continue;
    accepted.add(name.trim());
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return 'identity';
}

/** A success answer serialised once, with its compressed forms made on first use. */
export class PreparedAnswer {
  private readonly coded = new Map<Encoding, Buffer>();

  constructor(readonly json: Buffer) {}

  static of(envelope: Envelope): PreparedAnswer {
    return new PreparedAnswer(Buffer.from(JSON.stringify(envelope)));
  }

  body(encoding: Encoding): Buffer {
    if (encoding === 'identity') return this.json;
    let body = this.coded.get(encoding);
    if (!body) {
      body = encoding === 'br' ? brotliCompressSync(this.json, BROTLI_FAST) : gzipSync(this.json, { level: 6 });
      this.coded.set(encoding, body);
    }
    return body;
  }
}

/**
 * Answers that are the same for every caller of an event at one content version (gallery pages,
 * the timeline), by their ETag, which holds the version: a new version is a new key, so a change
 * is never served stale, and old versions fall out by age. Bounded in entries and in entry size.
 */
export class SharedReads {
  private readonly answers: LruMap<string, PreparedAnswer>;

  constructor(
    capacity = 500,
    private readonly maxEntryBytes = 256 * 1024,
  ) {
    this.answers = new LruMap(capacity);
  }

  get(etag: string): PreparedAnswer | undefined {
    return this.answers.get(etag);
  }

  set(etag: string, answer: PreparedAnswer): void {
    if (answer.json.length <= this.maxEntryBytes) this.answers.set(etag, answer);
  }
}

/** A success envelope with its validator, compressed when the client accepts it and it is worth it. */
export function sendCacheable(
  req: IncomingMessage,
  res: ServerResponse,
  answer: Envelope | PreparedAnswer,
  etag: string | null,
): void {
  const prepared = answer instanceof PreparedAnswer ? answer : PreparedAnswer.of(answer);
  const encoding =
    prepared.json.length >= COMPRESS_MIN_BYTES ? chooseEncoding(req.headers['accept-encoding']) : 'identity';
  const body = prepared.body(encoding);
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': body.length,
    'cache-control': CACHE_CONTROL,
    vary: VARY,
  };
  if (encoding !== 'identity') headers['content-encoding'] = encoding;
  if (etag) headers.etag = encoding === 'identity' ? etag : `${etag.slice(0, -1)}-${encoding}"`;
  res.writeHead(200, headers);
  res.end(body);
}

/** 304: the client's copy is current (no body; the validator and caching headers as a 200 would carry). */
export function sendNotModified(res: ServerResponse, etag: string): void {
  res.writeHead(304, { etag, 'cache-control': CACHE_CONTROL, vary: VARY });
  res.end();
}

/** Brotli at quality 4: most of its gain over gzip at a fraction of the default quality's CPU. */
const BROTLI_FAST = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };
