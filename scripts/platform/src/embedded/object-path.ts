/**
 * What an S3 request path names, decided before the store sees it. s3rver decodes the path once
 * and joins it onto its directory (`path.join` resolves `..`), so a path is judged on every
 * decoding of it: a `.`/`..` segment, a backslash or a NUL at any depth refuses it.
 */
export type ObjectPath =
  | {
      ok: true;
      bucket: string;
      /** The key decoded once, as the store reads it (byte-wise: for prefix checks); '' for the bucket. */ key: string;
    }
  | { ok: false; reason: string };

/** Decoding %XX byte by byte: enough to find ASCII `.`, `/`, `\` and NUL, and never throws on a malformed escape. */
const decodeBytes = (s: string) =>
  s.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** Decodes until nothing changes (bounded: each pass shortens the string). */
export function decodeFully(s: string): string {
  let current = s;
  for (let next = decodeBytes(current); next !== current; next = decodeBytes(current)) current = next;
  return current;
}

function unsafeReason(decoded: string): string | null {
  if (decoded.includes('\0')) return 'a NUL character';
  if (decoded.includes('\\')) return 'a backslash';
  if (decoded.split('/').some((segment) => segment === '.' || segment === '..')) return 'a "." or ".." segment';
  return null;
}

/** Parses the path part of a path-style request (`/bucket/key...`), without its query. */
export function parseObjectPath(pathname: string): ObjectPath {
  const reason = unsafeReason(pathname) ?? unsafeReason(decodeFully(pathname));
  if (reason) return { ok: false, reason: `The object key must not contain ${reason}` };
  const rest = pathname.replace(/^\//, '');
  const slash = rest.indexOf('/');
  const rawBucket = slash < 0 ? rest : rest.slice(0, slash);
  const rawKey = slash < 0 ? '' : rest.slice(slash + 1);
  // The bucket name must be literal: s3rver would otherwise read `a%2fb` as bucket `a`, key `b`.
  if (rawBucket.includes('%')) return { ok: false, reason: 'The bucket name must not be percent-encoded' };
  return { ok: true, bucket: rawBucket, key: decodeBytes(rawKey) };
}

/** Query parameters that make a GET something else than reading the object (its ACL, tags, uploads...). */
const SUBRESOURCES = new Set([
  'acl',
  'tagging',
  'torrent',
  'uploadId',
  'uploads',
  'partNumber',
  'versionId',
  'versions',
  'attributes',
  'retention',
  'legal-hold',
  'policy',
  'cors',
  'website',
  'location',
  'lifecycle',
]);

/**
 * Anonymous reads: GET/HEAD of an object whose key, as the store reads it, is under the public
 * prefix; no subresource and no response-header override (real S3 refuses those anonymously too).
 */
export function isPublicRead(
  method: string,
  target: ObjectPath,
  queryNames: string[],
  bucket: string,
  publicPrefix: string,
): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (queryNames.some((name) => SUBRESOURCES.has(name) || /^response-/i.test(name))) return false;
  return (
    target.ok &&
    target.bucket === bucket &&
    target.key.startsWith(publicPrefix) &&
    target.key.length > publicPrefix.length
  );
}
