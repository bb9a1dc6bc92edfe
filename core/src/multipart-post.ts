import { randomBytes } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';

/** A file on disk sent as one part of a multipart/form-data request. */
export interface MultipartFilePart {
  field: string;
  path: string;
  fileName: string;
  mimeType: string;
}

export interface MultipartAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One read buffer per request, reused for every chunk of every file. */
const CHUNK_BYTES = 64 * 1024;

/**
 * POSTs text fields and files from disk as multipart/form-data, the files read chunk by chunk into
 * one reused buffer, each written only once the previous one left for the socket. Node's fetch
 * reads a FormData of file-backed blobs (or a streamed body) far ahead of the socket: 10 x 50 MB
 * held over 500 MB in the sender. The length is known ahead, so no chunked encoding.
 */
export async function postMultipart(
  url: string,
  request: { headers: Record<string, string>; fields: Array<[string, string]>; files: MultipartFilePart[] },
): Promise<MultipartAnswer> {
  const boundary = `----em-${randomBytes(16).toString('hex')}`;
  const disposition = (name: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${escapeQuoted(name)}"`;
  const fieldParts = request.fields.map(([name, value]) => Buffer.from(`${disposition(name)}\r\n\r\n${value}\r\n`));
  const fileHeads = request.files.map((f) => {
    const type = f.mimeType || 'application/octet-stream';
    return Buffer.from(
      `${disposition(f.field)}; filename="${escapeQuoted(f.fileName)}"\r\nContent-Type: ${type}\r\n\r\n`,
    );
  });
  const closing = Buffer.from(`--${boundary}--\r\n`);
  const sizes = await Promise.all(request.files.map(async (f) => (await stat(f.path)).size));
  const framing = [...fieldParts, ...fileHeads, closing].reduce((sum, b) => sum + b.length, 0);
  // Each file is followed by CRLF.
  const length = framing + sizes.reduce((sum, s) => sum + s + 2, 0);

  const target = new URL(url);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (!/^(content-type|content-length|transfer-encoding)$/i.test(name)) headers[name] = value;
  }
  headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
  headers['content-length'] = String(length);

  return new Promise<MultipartAnswer>((resolve, reject) => {
    let answered = false;
    let sent = false;
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(target, { method: 'POST', headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        // A connection whose body was cut short cannot carry another request.
        if (!sent) req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const write = (chunk: Buffer) =>
      new Promise<void>((done, fail) => req.write(chunk, (err) => (err ? fail(err) : done())));
    (async () => {
      for (const part of fieldParts) await write(part);
      const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
      for (const [i, file] of request.files.entries()) {
        await write(fileHeads[i]);
        const handle = await open(file.path, 'r');
        try {
          let left = sizes[i];
          while (left > 0 && !answered) {
            const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, left), null);
            if (bytesRead === 0) throw new Error(`${file.path} shrank while it was sent`);
            left -= bytesRead;
            await write(buffer.subarray(0, bytesRead));
          }
        } finally {
          await handle.close();
        }
        if (answered) return;
        await write(Buffer.from('\r\n'));
      }
      req.end(closing);
      sent = true;
    })().catch((err: unknown) => {
      // An answer that came before the whole body (a refusal) stands; the rest is not sent.
      if (answered) return;
      const error = err instanceof Error ? err : new Error(String(err));
      req.destroy(error);
      reject(error);
    });
  });
}

/** A name or file name inside a quoted Content-Disposition parameter, escaped as browsers do. */
function escapeQuoted(value: string): string {
  return value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}
