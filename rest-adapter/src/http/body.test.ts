import http from 'node:http';
import { AddressInfo } from 'node:net';
import { AppError } from '@em/core';
import { parseJsonBody, readBody } from './body';

/** What readBody gives a server for one request: `read <bytes>` or `refused <status>`. */
async function served(limit: number, request: { method: string; headers?: Record<string, string>; body?: string[] }) {
  const server = http.createServer((req, res) => {
    readBody(req, limit).then(
      (body) => res.end(`read ${body.length}`),
      (err: unknown) => res.end(`refused ${err instanceof AppError ? err.status : 'other'}`),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    return await new Promise<string>((resolve, reject) => {
      const { port } = server.address() as AddressInfo;
      const req = http.request({ host: '127.0.0.1', port, method: request.method, headers: request.headers }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      for (const chunk of request.body ?? []) req.write(chunk);
      req.end();
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

describe('readBody', () => {
  it('gives an empty body for a request without one, and still reads and bounds a chunked or sized body', async () => {
    expect(await served(1024, { method: 'GET' })).toBe('read 0');
    expect(await served(1024, { method: 'POST', body: ['{"a":', '1}'] })).toBe('read 7');
    expect(await served(1024, { method: 'POST', headers: { 'content-length': '7' }, body: ['{"a":1}'] })).toBe(
      'read 7',
    );
    expect(await served(1024, { method: 'POST', body: ['x'.repeat(800), 'x'.repeat(800)] })).toBe('refused 413');
    const chunkedGet = { method: 'GET', headers: { 'transfer-encoding': 'chunked' } };
    expect(await served(1024, { ...chunkedGet, body: ['x'.repeat(800), 'x'.repeat(800)] })).toBe('refused 413');
  });
});

describe('parseJsonBody', () => {
  it('parses JSON bodies, an empty one as undefined', () => {
    expect(parseJsonBody(Buffer.from('{"a":[1,{"b":2}]}'), 'application/json')).toEqual({ a: [1, { b: 2 }] });
    expect(parseJsonBody(Buffer.alloc(0), 'application/json')).toBeUndefined();
  });

  it('refuses a body nested 10,000 levels with a 400 naming the depth (never a stack overflow)', () => {
    const deep = Buffer.from(`{"identifier":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
    expect(() => parseJsonBody(deep, 'application/json')).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST', message: expect.stringMatching(/deeper than 64 levels/) }),
    );
  });
});
