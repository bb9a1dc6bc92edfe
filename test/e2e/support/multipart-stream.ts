import http from 'node:http';

export const MB = 1024 * 1024;

/** An answer to a streamed upload. */
export interface StreamedAnswer {
  status: number;
  /** The JSON answer, or its text when it is not JSON: each test reads the fields it checks. */
  body: any;
  /** From the request's start to the response's headers. */
  elapsedMs: number;
  /** Body bytes written before the answer came. */
  sentBytes: number;
}

/** The head of a multipart file part; its bytes follow. */
export const filePartHead = (boundary: string, name: string, fileName: string, contentType: string) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${fileName}"\r\nContent-Type: ${contentType}\r\n\r\n`;

/** A multipart text field. */
export const fieldPart = (boundary: string, name: string, value: string) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

const ZEROES = Buffer.alloc(MB);

/** `bytes` zero bytes, a megabyte at a time (never built in memory). */
export function* zeroes(bytes: number): Generator<Buffer> {
  for (let left = bytes; left > 0; left -= MB) yield left >= MB ? ZEROES : ZEROES.subarray(0, left);
}

/**
 * Streams a multipart body to `url` with chunked encoding, part by part as `parts` yields them, and stops
 * writing the moment the answer arrives. `end: false` leaves the body unfinished (a stalled client), so any
 * answer comes before the body.
 */
export function streamMultipart(opts: {
  url: URL;
  boundary: string;
  headers?: Record<string, string>;
  parts: AsyncIterable<Buffer | string> | Iterable<Buffer | string>;
  end: boolean;
}): Promise<StreamedAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let sentBytes = 0;
    let answered = false;
    const req = http.request({
      host: opts.url.hostname,
      port: opts.url.port,
      path: opts.url.pathname + opts.url.search,
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${opts.boundary}`, ...opts.headers },
    });
    req.on('response', (res) => {
      answered = true;
      const elapsedMs = Date.now() - started;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        req.destroy();
        const text = Buffer.concat(chunks).toString();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // left as text
        }
        resolve({ status: res.statusCode!, body, elapsedMs, sentBytes });
      });
      res.on('error', reject);
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    (async () => {
      for await (const data of opts.parts) {
        if (answered || req.destroyed) return;
        sentBytes += Buffer.byteLength(data);
        if (!req.write(data)) {
          await new Promise<void>((r) => {
            const done = () => (req.off('drain', done), req.off('close', done), r());
            req.on('drain', done);
            req.on('close', done);
          });
        }
      }
      if (opts.end && !answered) req.end();
    })().catch(() => undefined);
  });
}
