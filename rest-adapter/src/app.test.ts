import { compileTrustProxy, createLogger, ServiceMetrics } from '@em/core';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { createRestHandler } from './app';
import { GatewayClient, GraphQLResult } from './gateway-client';
import { ROUTES } from './routes';

/** The adapter in front of a fake gateway that records what it is asked and answers `authorize` as told. */
async function adapter(authorize: GraphQLResult) {
  const calls: string[] = [];
  const gateway = {
    execute: async (query: string) => (
      calls.push(/\{\s*(\w+)/.exec(query)![1]),
      query.includes('authorize(') ? authorize : { data: { pipelineStatus: null } }
    ),
    executeWithFiles: async () => (
      calls.push('upload'),
      { data: { importPhotos: { imported: 1, duplicates: 0, rejected: 0, files: [] } } }
    ),
  } as unknown as GatewayClient;
  const server = http.createServer(
    createRestHandler({
      routes: ROUTES,
      gateway,
      bodyLimitBytes: 1024,
      uploadLimits: { maxFileBytes: 64 * 1024, maxFiles: 2, selfieMaxBytes: 8 * 1024 },
      logger: createLogger('test'),
      version: 't',
      metrics: new ServiceMetrics('test-adapter'),
      trustProxy: compileTrustProxy('loopback'),
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/ext`;
  return { url, calls, close: () => new Promise((r) => server.close(r)) };
}

const form = (bytes: number, field = 'files', count = 1) => {
  const body = new FormData();
  for (let i = 0; i < count; i++)
    body.append(field, new Blob([Buffer.alloc(bytes)], { type: 'image/jpeg' }), `a${i}.jpg`);
  return body;
};

describe('the REST adapter checks the caller first', () => {
  it('no credentials: 401 without asking the gateway, before validation', async () => {
    const a = await adapter({ data: { authorize: true } });
    try {
      const res = await fetch(`${a.url}/1/event/2/timeline/images`);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ responseType: 'error', data: null });
      expect(a.calls).toEqual([]);
    } finally {
      await a.close();
    }
  });

  it('a local 4xx is preceded by authorize, whose refusal wins', async () => {
    const a = await adapter({ errors: [{ message: 'The API key is invalid', extensions: { code: 'FORBIDDEN' } }] });
    try {
      expect((await fetch(`${a.url}/1/event/2/timeline/images`, { headers: { 'x-api-key': 'k' } })).status).toBe(403);
      expect(a.calls).toEqual(['authorize']);
    } finally {
      await a.close();
    }
  });

  it('an upload is authorised before it is read; an over-limit file is a 413', async () => {
    const a = await adapter({ data: { authorize: true } });
    try {
      const ok = await fetch(`${a.url}/1/event/2/pipeline/photos/import`, {
        method: 'POST',
        headers: { 'x-api-key': 'k' },
        body: form(1000),
      });
      expect(ok.status).toBe(200);
      expect(a.calls).toEqual(['authorize', 'upload']);
      const big = await fetch(`${a.url}/1/event/2/pipeline/photos/import`, {
        method: 'POST',
        headers: { 'x-api-key': 'k' },
        body: form(200 * 1024),
      });
      expect(big.status).toBe(413);
    } finally {
      await a.close();
    }
  });

  it('an upload refused by authorize is never read', async () => {
    const a = await adapter({ errors: [{ message: 'Event not found', extensions: { code: 'NOT_FOUND' } }] });
    try {
      const res = await fetch(`${a.url}/1/event/2/pipeline/photos/import`, {
        method: 'POST',
        headers: { 'x-api-key': 'k' },
        body: form(1000),
      });
      expect(res.status).toBe(404);
      expect(a.calls).toEqual(['authorize']);
    } finally {
      await a.close();
    }
  });

  it('a selfie is held to the selfie limit and to one file, before the gateway sees it', async () => {
    const a = await adapter({ data: { authorize: true } });
    try {
      const big = await fetch(`${a.url}/1/event/2/faces`, {
        method: 'POST',
        headers: { 'x-api-key': 'k' },
        body: form(20 * 1024, 'file'),
      });
      expect(big.status).toBe(413);
      expect((await big.json()).message).toMatch(/larger than/);
      const two = await fetch(`${a.url}/1/event/2/faces`, {
        method: 'POST',
        headers: { 'x-api-key': 'k' },
        body: form(1000, 'file', 2),
      });
      expect(two.status).toBe(400);
      expect((await two.json()).message).toMatch(/one file/);
      expect(a.calls).toEqual(['authorize', 'authorize']);
    } finally {
      await a.close();
    }
  });
});
