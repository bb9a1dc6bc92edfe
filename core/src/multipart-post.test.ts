import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { postMultipart } from './multipart-post';

interface Received {
  fields: Record<string, string>;
  files: Array<{ field: string; fileName: string; mimeType: string; bytes: Buffer }>;
  contentLength: string | undefined;
  bodyLength: number;
  closed?: boolean;
}

/** A server that splits a multipart body on its boundary and answers what it got. */
function multipartServer(answerEarly = false): Promise<{ url: string; received: Promise<Received>; close(): void }> {
  let deliver!: (r: Received) => void;
  const received = new Promise<Received>((r) => (deliver = r));
  const server = http.createServer((req, res) => {
    if (answerEarly) return void res.writeHead(413, { 'content-type': 'application/json' }).end('{"refused":true}');
    const boundary = /boundary=(.+)$/.exec(req.headers['content-type'] ?? '')?.[1] ?? '';
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const got: Received = {
        fields: {},
        files: [],
        contentLength: req.headers['content-length'],
        bodyLength: body.length,
      };
      const delimiter = Buffer.from(`--${boundary}`);
      let at = body.indexOf(delimiter);
      while (at >= 0 && body.subarray(at + delimiter.length, at + delimiter.length + 2).toString() === '\r\n') {
        const headEnd = body.indexOf('\r\n\r\n', at);
        const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headEnd);
        const head = body.subarray(at, headEnd).toString('utf8');
        const content = body.subarray(headEnd + 4, next);
        const field = /name="([^"]*)"/.exec(head)![1];
        const fileName = /filename="([^"]*)"/.exec(head)?.[1];
        if (fileName === undefined) got.fields[field] = content.toString('utf8');
        else got.files.push({ field, fileName, mimeType: /Content-Type: (.*)/.exec(head)![1], bytes: content });
        at = next + 2;
      }
      got.closed = body.subarray(at).toString() === `--${boundary}--\r\n`;
      deliver(got);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
        received,
        close: () => server.close(),
      }),
    ),
  );
}

describe('postMultipart', () => {
  let dir: string;
  beforeAll(async () => (dir = await mkdtemp(path.join(tmpdir(), 'multipart-post-'))));
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('sends the fields and every file byte for byte with the exact content length, names kept as UTF-8', async () => {
    const big = Buffer.alloc(1024 * 1024 + 17, 7);
    big[0] = 1;
    big[big.length - 1] = 2;
    await writeFile(path.join(dir, 'a'), big);
    await writeFile(path.join(dir, 'b'), '');
    const server = await multipartServer();
    try {
      const answer = await postMultipart(server.url, {
        headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
        fields: [
          ['operations', '{"query":"{ x }"}'],
          ['map', '{"0":["variables.f"]}'],
        ],
        files: [
          { field: '0', path: path.join(dir, 'a'), fileName: 'r\u00e9sum\u00e9 "1".jpg', mimeType: 'image/jpeg' },
          { field: '1', path: path.join(dir, 'b'), fileName: 'empty.bin', mimeType: '' },
        ],
      });
      expect(answer).toMatchObject({ status: 200, body: '{"ok":true}' });
      const got = await server.received;
      expect(got.fields).toEqual({ operations: '{"query":"{ x }"}', map: '{"0":["variables.f"]}' });
      expect(got.files.map((f) => [f.field, f.fileName, f.mimeType, f.bytes.length])).toEqual([
        ['0', 'r\u00e9sum\u00e9 %221%22.jpg', 'image/jpeg', big.length],
        ['1', 'empty.bin', 'application/octet-stream', 0],
      ]);
      expect(got.files[0].bytes.equals(big)).toBe(true);
      expect(Number(got.contentLength)).toBe(got.bodyLength);
      expect(got.closed).toBe(true);
    } finally {
      server.close();
    }
  });

  it('gives back an answer that comes before the body is sent, and stops sending', async () => {
    await writeFile(path.join(dir, 'c'), Buffer.alloc(8 * 1024 * 1024));
    const server = await multipartServer(true);
    try {
      const answer = await postMultipart(server.url, {
        headers: {},
        fields: [],
        files: [{ field: '0', path: path.join(dir, 'c'), fileName: 'c', mimeType: 'video/mp4' }],
      });
      expect(answer).toMatchObject({ status: 413, body: '{"refused":true}' });
    } finally {
      server.close();
    }
  });

  it('rejects when nothing listens', async () => {
    await writeFile(path.join(dir, 'd'), 'x');
    const server = await multipartServer();
    const url = server.url;
    server.close();
    await expect(
      postMultipart(url, {
        headers: {},
        fields: [],
        files: [{ field: '0', path: path.join(dir, 'd'), fileName: 'd', mimeType: '' }],
      }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});
