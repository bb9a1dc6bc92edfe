import http from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { Readable } from 'node:stream';
import { isPublicRead, parseObjectPath } from './object-path';
import { Credentials, verifySigV4, VerifyResult } from './sigv4';
import { PayloadLimits, receiveVerifiedPayload } from './verified-payload';
import { makeS3rverPutsAtomic, removeUnfinishedPuts } from './atomic-put';
import { corsConfiguration, multipartUploads } from './multipart-uploads';

// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: object) => { run(): Promise<unknown>; close(): Promise<void> };

/** s3rver's built-in account: the verifying front re-authenticates verified requests as this one. */
const STORE_ACCOUNT = 'S3RVER';

export interface EmbeddedS3Options {
  dataDir: string;
  port: number;
  host?: string;
  bucket: string;
  credentials: Credentials;
  /** Object keys under this prefix are publicly readable (GET/HEAD) without a signature: the media host. */
  publicPrefix: string;
  /** Origins that may PUT from a browser (the dashboard's): the bucket's CORS rules. */
  corsOrigins?: string[];
  /** Objects under `prefix` and multipart uploads older than `maxAgeMs` are removed hourly (a lifecycle rule). */
  abandonedUploads?: { prefix: string; maxAgeMs: number };
}

export interface EmbeddedS3 {
  endpoint: string;
  port: number;
  /** How many files PUTs killed before this start left (removed beside the running store). */
  unfinishedPutsRemoved: Promise<number>;
  stop(): Promise<void>;
}

function s3Error(res: http.ServerResponse, status: number, code: string, message: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function stripAuthQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const kept = url
    .slice(q + 1)
    .split('&')
    .filter((p) => p && !/^x-amz-/i.test(p));
  return kept.length ? `${url.slice(0, q)}?${kept.join('&')}` : url.slice(0, q);
}

function amzNow(): string {
  return new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

type CheckedBody =
  | { ok: true; stream: Readable; length?: number; dispose(): Promise<void> }
  | { ok: false; status: number; code: string; message: string };

/**
 * The body to pass on to the store: as it comes (anonymous, presigned, UNSIGNED-PAYLOAD), or, when
 * the signature covers its sha256, received in full and checked against it first.
 */
async function checkedBody(
  req: http.IncomingMessage,
  verdict: VerifyResult & { ok: true },
  limits: PayloadLimits,
): Promise<CheckedBody> {
  const asReceived: CheckedBody = { ok: true, stream: req, dispose: async () => undefined };
  if (verdict.kind !== 'header' || verdict.payloadHash === 'UNSIGNED-PAYLOAD') return asReceived;
  if (verdict.payloadHash.startsWith('STREAMING-')) {
    // s3rver would store the aws-chunked framing as the object's bytes.
    return {
      ok: false,
      status: 501,
      code: 'NotImplemented',
      message:
        "aws-chunked uploads (STREAMING-*) are not supported by the embedded store: send UNSIGNED-PAYLOAD or the body's sha256 (AWS SDK: requestChecksumCalculation 'WHEN_REQUIRED')",
    };
  }
  const payload = await receiveVerifiedPayload(req, verdict.payloadHash, limits);
  return payload.ok
    ? { ok: true, stream: payload.stream(), length: payload.length, dispose: () => payload.dispose() }
    : payload;
}

/** The request's headers for s3rver: our signature replaced by its own account's (`signed`), the body's length when known. */
function storeHeaders(received: http.IncomingHttpHeaders, signed: boolean, length?: number): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = { ...received };
  delete headers.authorization;
  for (const h of Object.keys(headers))
    if (h.startsWith('x-amz-') && h !== 'x-amz-content-sha256' && !h.startsWith('x-amz-meta-')) delete headers[h];
  // An IP host keeps s3rver on path-style addressing.
  headers.host = '127.0.0.1';
  if (length !== undefined) {
    delete headers['transfer-encoding'];
    headers['content-length'] = String(length);
  }
  if (signed) {
    const date = amzNow();
    headers['x-amz-date'] = date;
    headers['x-amz-content-sha256'] ??= 'UNSIGNED-PAYLOAD';
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${STORE_ACCOUNT}/${date.slice(0, 8)}/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=verified-by-front`;
  }
  return headers;
}

/** Longest Unix socket path that fits `sun_path` on every platform we run on (104 bytes on macOS). */
const MAX_SOCKET_PATH_BYTES = 100;

/**
 * Where s3rver listens: a Unix socket in the 0700 data directory (or, if that path is too long for
 * a socket, in a fresh 0700 temp directory). Only the platform's user can open it; s3rver checks
 * no signature, so it must have no TCP port that anyone on the machine could reach.
 */
function storeSocketPath(dataDir: string): { socketPath: string; cleanup: () => void } {
  const inDataDir = path.join(dataDir, 's3.sock');
  if (Buffer.byteLength(inDataDir) <= MAX_SOCKET_PATH_BYTES) {
    rmSync(inDataDir, { force: true });
    return { socketPath: inDataDir, cleanup: () => rmSync(inDataDir, { force: true }) };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'em-s3-'));
  return { socketPath: path.join(dir, 's3.sock'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * S3 for the embedded default: s3rver stores the objects on disk behind a Unix socket only the
 * platform can open, and a front on the public port verifies every SigV4 signature (s3rver does
 * not) before passing the request on. Objects under the public prefix are served anonymously, as
 * a bucket policy for a media CDN would.
 */
export async function startEmbeddedS3(opts: EmbeddedS3Options): Promise<EmbeddedS3> {
  const directory = path.join(opts.dataDir, 's3');
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const { socketPath, cleanup: removeSocket } = storeSocketPath(opts.dataDir);
  makeS3rverPutsAtomic();
  const startedAt = new Date();
  const store = new S3rver({
    // s3rver passes `port` to server.listen first: an options object makes it a Unix socket.
    port: { path: socketPath },
    address: undefined,
    directory,
    silent: true,
    // s3rver refuses a CORS document without rules: no origins, no CORS configuration.
    configureBuckets: [
      { name: opts.bucket, configs: opts.corsOrigins?.length ? [corsConfiguration(opts.corsOrigins)] : [] },
    ],
  });
  await store.run();
  chmodSync(socketPath, 0o600);

  const spoolDir = path.join(opts.dataDir, 's3-spool');
  rmSync(spoolDir, { recursive: true, force: true });
  mkdirSync(spoolDir, { recursive: true, mode: 0o700 });
  // A signed body is held in memory up to a large photo's size (only the platform's own services sign one; browsers
  // upload presigned, streamed): spooling each original to disk and reading it back cost ~15% of a PUT's CPU.
  const payloadLimits = { spoolDir, memoryBytes: 16 * 1024 ** 2, maxBytes: 5 * 1024 ** 3 };
  const uploads = multipartUploads(directory);
  const sweep = opts.abandonedUploads;
  const sweepAbandoned = () => void (sweep ? uploads.sweep(sweep.prefix, sweep.maxAgeMs).catch(() => undefined) : 0);
  sweepAbandoned();
  const unfinishedPutsRemoved = removeUnfinishedPuts(directory, startedAt).catch(() => 0);
  const sweeper = setInterval(sweepAbandoned, 3600_000);
  sweeper.unref();

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = req.url ?? '/';
    // A CORS preflight carries no credentials by definition: s3rver answers it from the bucket's CORS rules.
    if (method === 'OPTIONS') return preflight(req, res, url);
    const verdict = verifySigV4({ method, url, headers: req.headers }, opts.credentials);
    if (!verdict.ok) return s3Error(res, verdict.status, verdict.code, verdict.message);
    const q = url.indexOf('?');
    const pathname = q < 0 ? url : url.slice(0, q);
    const target = parseObjectPath(pathname);
    if (!target.ok) return s3Error(res, 400, 'InvalidURI', target.reason);
    const queryNames = [...new URLSearchParams(q < 0 ? '' : url.slice(q + 1)).keys()];
    if (verdict.kind === 'anonymous' && !isPublicRead(method, target, queryNames, opts.bucket, opts.publicPrefix)) {
      return s3Error(res, 403, 'AccessDenied', 'Access Denied');
    }

    const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    if (verdict.kind !== 'anonymous' && (await uploads.handle(method, target.bucket, target.key, query, res))) return;

    const body = await checkedBody(req, verdict, payloadLimits);
    if (!body.ok) return s3Error(res, body.status, body.code, body.message);
    res.on('close', () => void body.dispose());
    const headers = storeHeaders(req.headers, verdict.kind !== 'anonymous', body.length);
    const upstream = http.request({ socketPath, method, path: stripAuthQuery(url), headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) s3Error(res, 503, 'ServiceUnavailable', 'The object store is not available');
      else res.destroy();
    });
    // The client went away mid-request: the store drops what it received rather than wait for the rest.
    res.on('close', () => void (res.writableFinished || upstream.destroy()));
    body.stream.pipe(upstream);
  };

  const preflight = (req: http.IncomingMessage, res: http.ServerResponse, url: string) => {
    if (!parseObjectPath(url.split('?')[0]).ok) return s3Error(res, 400, 'InvalidURI', 'Invalid path');
    const headers: http.OutgoingHttpHeaders = { host: '127.0.0.1' };
    for (const h of ['origin', 'access-control-request-method', 'access-control-request-headers'])
      if (req.headers[h]) headers[h] = req.headers[h];
    const upstream = http.request({ socketPath, method: 'OPTIONS', path: stripAuthQuery(url), headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    upstream.on('error', () => s3Error(res, 503, 'ServiceUnavailable', 'The object store is not available'));
    upstream.end();
  };

  const front = http.createServer((req, res) => {
    // Reading the body failed (the client went away, the disk is full): answer if anyone still listens.
    handle(req, res).catch(() => {
      if (!res.headersSent) s3Error(res, 500, 'InternalError', 'We encountered an internal error. Please try again.');
      else res.destroy();
    });
  });
  front.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(opts.port, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (front.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    unfinishedPutsRemoved,
    async stop() {
      clearInterval(sweeper);
      const closed = new Promise<void>((resolve) => front.close(() => resolve()));
      front.closeAllConnections();
      await closed;
      await store.close();
      removeSocket();
    },
  };
}
