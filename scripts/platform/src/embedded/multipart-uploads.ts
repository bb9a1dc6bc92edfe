import http from 'node:http';
import path from 'node:path';
import { readdir, readFile, rm, stat } from 'node:fs/promises';

/**
 * What s3rver 3.7.1 lacks of S3's multipart API, done by the front on s3rver's own files: ListParts
 * (GET ?uploadId), AbortMultipartUpload (DELETE ?uploadId), NoSuchUpload for an unknown upload (s3rver
 * answers 500), and the lifecycle rule that removes abandoned uploads. s3rver keeps an upload in
 * `<bucket>/._S3rver_uploads/<uploadId>/` (`key`, `metadata`, and each part as `<n>` with `<n>.md5`).
 */
export interface MultipartUploads {
  /** Answers the request when it is one of the operations above; false to pass it on to s3rver. */
  handle(
    method: string,
    bucket: string,
    key: string,
    query: URLSearchParams,
    res: http.ServerResponse,
  ): Promise<boolean>;
  /** Removes uploads started, and objects under `prefix` written, more than `maxAgeMs` ago. */
  sweep(prefix: string, maxAgeMs: number): Promise<{ uploads: number; objects: number }>;
}

const UPLOAD_ID = /^[0-9a-f]{32}$/;

const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function sendXml(res: http.ServerResponse, status: number, body: string): void {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) });
  res.end(xml);
}

const noSuchUpload = (res: http.ServerResponse) =>
  sendXml(
    res,
    404,
    '<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist. The upload ID may be invalid, ' +
      'or the upload may have been aborted or completed.</Message></Error>',
  );

export function multipartUploads(storeDirectory: string): MultipartUploads {
  const uploadsDir = (bucket: string) => path.join(storeDirectory, bucket, '._S3rver_uploads');

  /** The upload's directory when it exists and belongs to this key; null otherwise. */
  async function uploadOf(bucket: string, key: string, uploadId: string | null): Promise<string | null> {
    if (!uploadId || !UPLOAD_ID.test(uploadId)) return null;
    const dir = path.join(uploadsDir(bucket), uploadId);
    const stored = await readFile(path.join(dir, 'key'), 'utf8').catch(() => null);
    return stored === key ? dir : null;
  }

  async function listParts(bucket: string, key: string, uploadId: string, dir: string, res: http.ServerResponse) {
    const numbers = (await readdir(dir))
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .sort((a, b) => a - b);
    const parts: string[] = [];
    for (const n of numbers) {
      const [info, md5] = await Promise.all([
        stat(path.join(dir, String(n))),
        readFile(path.join(dir, `${n}.md5`), 'utf8').catch(() => null),
      ]);
      // A part without its checksum is still being written: not listed, as S3 lists only stored parts.
      if (md5 === null) continue;
      parts.push(
        `<Part><PartNumber>${n}</PartNumber><LastModified>${info.mtime.toISOString()}</LastModified>` +
          `<ETag>"${md5.trim()}"</ETag><Size>${info.size}</Size></Part>`,
      );
    }
    sendXml(
      res,
      200,
      `<ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${xmlText(bucket)}</Bucket>` +
        `<Key>${xmlText(key)}</Key><UploadId>${uploadId}</UploadId><MaxParts>10000</MaxParts>` +
        `<IsTruncated>false</IsTruncated>${parts.join('')}</ListPartsResult>`,
    );
  }

  async function removeOlder(dir: string, cutoff: number, pick: (name: string) => boolean): Promise<number> {
    let removed = 0;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && !pick(entry.name)) {
        removed += await removeOlder(full, cutoff, pick);
        continue;
      }
      if (!pick(entry.name)) continue;
      const info = await stat(full).catch(() => null);
      if (info && info.mtimeMs < cutoff) {
        await rm(full, { recursive: true, force: true });
        if (entry.name.endsWith('._S3rver_object')) removed++;
      }
    }
    return removed;
  }

  return {
    async handle(method, bucket, key, query, res) {
      if (!query.has('uploadId') || !key) return false;
      const isListParts = method === 'GET' && !query.has('partNumber');
      const isAbort = method === 'DELETE';
      const isPartOrComplete = method === 'PUT' || method === 'POST';
      if (!isListParts && !isAbort && !isPartOrComplete) return false;
      const uploadId = query.get('uploadId');
      const dir = await uploadOf(bucket, key, uploadId);
      if (!dir) {
        noSuchUpload(res);
        return true;
      }
      if (isPartOrComplete) return false;
      if (isAbort) {
        await rm(dir, { recursive: true, force: true });
        res.writeHead(204).end();
        return true;
      }
      await listParts(bucket, key, uploadId!, dir, res);
      return true;
    },

    async sweep(prefix, maxAgeMs) {
      const cutoff = Date.now() - maxAgeMs;
      let uploads = 0;
      let objects = 0;
      for (const bucket of await readdir(storeDirectory).catch(() => [])) {
        const started = await readdir(uploadsDir(bucket)).catch(() => []);
        for (const uploadId of started.filter((id) => UPLOAD_ID.test(id))) {
          const dir = path.join(uploadsDir(bucket), uploadId);
          const info = await stat(path.join(dir, 'key')).catch(() => null);
          if (info && info.mtimeMs < cutoff) {
            await rm(dir, { recursive: true, force: true });
            uploads++;
          }
        }
        // An object is `<name>._S3rver_object` beside its metadata files: all of its files go.
        objects += await removeOlder(path.join(storeDirectory, bucket, prefix), cutoff, (name) =>
          /\._S3rver_(object|metadata\.json|object\.md5)$/.test(name),
        );
      }
      return { uploads, objects };
    },
  };
}

/** The bucket's CORS rules: the dashboard's origins may PUT objects and parts straight from the browser. */
export function corsConfiguration(origins: string[]): string {
  const rules = origins
    .map(
      (origin) =>
        `<CORSRule><AllowedOrigin>${xmlText(origin)}</AllowedOrigin><AllowedMethod>PUT</AllowedMethod>` +
        '<AllowedHeader>content-type</AllowedHeader><ExposeHeader>ETag</ExposeHeader>' +
        '<MaxAgeSeconds>600</MaxAgeSeconds></CORSRule>',
    )
    .join('');
  return `<CORSConfiguration>${rules}</CORSConfiguration>`;
}
