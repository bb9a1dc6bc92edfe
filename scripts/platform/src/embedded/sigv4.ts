import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * AWS Signature Version 4 verification for S3 requests: the Authorization header form and the
 * presigned-URL (query) form. The embedded store uses it so that a forged, tampered or expired
 * URL is refused the way real S3 refuses it.
 */
export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface SignedRequest {
  method: string;
  /** Path and query exactly as received (`req.url`). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

export type VerifyResult =
  | { ok: true; kind: 'query' | 'anonymous' }
  /** `payloadHash`: the signed `x-amz-content-sha256` (the body is the caller's to check against it). */
  | { ok: true; kind: 'header'; payloadHash: string }
  | { ok: false; status: number; code: string; message: string };

const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;
const CLOCK_SKEW_MS = 15 * 60 * 1000;

const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const sha256Hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, '%20'));
  } catch {
    return s;
  }
}

function parseQuery(raw: string): Array<[string, string]> {
  if (!raw) return [];
  return raw
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? [safeDecode(pair), ''] : [safeDecode(pair.slice(0, eq)), safeDecode(pair.slice(eq + 1))];
    });
}

/** Parses `20261122T101500Z`. */
function parseAmzDate(value: string): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return null;
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
}

function headerValue(headers: SignedRequest['headers'], name: string): string {
  const v = headers[name];
  const joined = Array.isArray(v) ? v.join(',') : (v ?? '');
  return joined.trim().replace(/\s+/g, ' ');
}

function signature(secret: string, scope: string[], amzDate: string, canonicalRequest: string): string {
  const [date, region, service] = scope;
  const kSigning = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope.join('/'), sha256Hex(canonicalRequest)].join('\n');
  return createHmac('sha256', kSigning).update(stringToSign, 'utf8').digest('hex');
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

const deny = (status: number, code: string, message: string): VerifyResult => ({ ok: false, status, code, message });

export function verifySigV4(req: SignedRequest, creds: Credentials, now = Date.now()): VerifyResult {
  const qIndex = req.url.indexOf('?');
  const path = qIndex < 0 ? req.url : req.url.slice(0, qIndex);
  const query = parseQuery(qIndex < 0 ? '' : req.url.slice(qIndex + 1));
  const q = new Map(query);
  const authHeader = headerValue(req.headers, 'authorization');

  let credential: string;
  let signedHeaders: string[];
  let provided: string;
  let amzDate: string;
  let payloadHash: string;
  let kind: 'header' | 'query';

  if (q.get('X-Amz-Algorithm')) {
    if (authHeader) return deny(400, 'InvalidArgument', 'Only one auth mechanism allowed');
    if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256')
      return deny(400, 'AuthorizationQueryParametersError', 'Unsupported algorithm');
    credential = q.get('X-Amz-Credential') ?? '';
    signedHeaders = (q.get('X-Amz-SignedHeaders') ?? '').split(';').filter(Boolean);
    provided = q.get('X-Amz-Signature') ?? '';
    amzDate = q.get('X-Amz-Date') ?? '';
    payloadHash = 'UNSIGNED-PAYLOAD';
    kind = 'query';
    const expires = Number(q.get('X-Amz-Expires'));
    const signedAt = parseAmzDate(amzDate);
    if (!Number.isInteger(expires) || expires < 1 || expires > MAX_PRESIGN_SECONDS || signedAt === null) {
      return deny(400, 'AuthorizationQueryParametersError', 'X-Amz-Date and X-Amz-Expires must be valid');
    }
    if (now > signedAt + expires * 1000) return deny(403, 'AccessDenied', 'Request has expired');
    if (signedAt - now > CLOCK_SKEW_MS) return deny(403, 'AccessDenied', 'Request is not yet valid');
  } else if (authHeader.startsWith('AWS4-HMAC-SHA256 ')) {
    const fields = Object.fromEntries(
      authHeader
        .slice('AWS4-HMAC-SHA256 '.length)
        .split(',')
        .map((part) => {
          const [k, ...v] = part.trim().split('=');
          return [k, v.join('=')];
        }),
    );
    credential = fields.Credential ?? '';
    signedHeaders = (fields.SignedHeaders ?? '').split(';').filter(Boolean);
    provided = fields.Signature ?? '';
    amzDate = headerValue(req.headers, 'x-amz-date');
    payloadHash = headerValue(req.headers, 'x-amz-content-sha256') || sha256Hex('');
    kind = 'header';
    const signedAt = parseAmzDate(amzDate);
    if (signedAt === null) return deny(403, 'AccessDenied', 'x-amz-date is missing or malformed');
    if (Math.abs(now - signedAt) > CLOCK_SKEW_MS)
      return deny(
        403,
        'RequestTimeTooSkewed',
        'The difference between the request time and the current time is too large',
      );
  } else if (authHeader) {
    return deny(400, 'InvalidArgument', 'Unsupported Authorization Type');
  } else {
    return { ok: true, kind: 'anonymous' };
  }

  const scope = credential.split('/');
  if (scope.length !== 5 || scope[4] !== 'aws4_request' || scope[3] !== 's3') {
    return deny(400, 'AuthorizationHeaderMalformed', 'The credential scope is malformed');
  }
  const [accessKeyId, ...scopeRest] = scope;
  if (accessKeyId !== creds.accessKeyId)
    return deny(403, 'InvalidAccessKeyId', 'The access key id does not exist in our records');
  if (!amzDate.startsWith(scopeRest[0]))
    return deny(403, 'SignatureDoesNotMatch', 'The credential date does not match X-Amz-Date');
  if (!signedHeaders.includes('host')) return deny(403, 'SignatureDoesNotMatch', 'The host header must be signed');

  const canonicalQuery = query
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalHeaders = signedHeaders.map((h) => `${h}:${headerValue(req.headers, h)}\n`).join('');
  const canonicalRequest = [
    req.method.toUpperCase(),
    path || '/',
    canonicalQuery,
    canonicalHeaders,
    signedHeaders.join(';'),
    payloadHash,
  ].join('\n');
  const expected = signature(creds.secretAccessKey, scopeRest, amzDate, canonicalRequest);
  if (!sameHex(expected, provided.toLowerCase())) {
    return deny(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided',
    );
  }
  return kind === 'header' ? { ok: true, kind, payloadHash } : { ok: true, kind };
}
