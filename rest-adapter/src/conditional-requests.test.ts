import { compileTrustProxy, createLogger, ServiceMetrics } from '@em/core';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { createRestHandler } from './app';
import { SharedReads } from './http/conditional';
import { GatewayClient, GraphQLResult } from './gateway-client';
import { ROUTES } from './routes';

/** The adapter in front of a fake gateway (timeline days of `hours` hours) and a content version as set. */
async function adapter(opts: { authorize?: GraphQLResult; hours?: number } = {}) {
  const calls: string[] = [];
  const state = { version: 'v1' as string | null, authorize: opts.authorize ?? { data: { authorize: true } } };
  const days = [
    { date: '2026-05-01', total: 3, hours: Array.from({ length: opts.hours ?? 2 }, (_, hour) => ({ hour, count: 1 })) },
  ];
  const gateway = {
    execute: async (query: string) => {
      const field = /\{\s*(\w+)/.exec(query)![1];
      calls.push(field);
      if (field === 'authorize') return state.authorize;
      if (field === 'timelinePhotos')
        return {
          data: {
            timelinePhotos: {
              items: [],
              pageInfo: {
                total: 0,
                currentPage: 0,
                totalPages: 0,
                hasNextPage: false,
                hasPreviousPage: false,
                pageSize: 32,
              },
            },
          },
        };
      if (field === 'event')
        return {
          data: {
            event: {
              id: 2,
              name: 'E',
              slug: 'e',
              eventDate: null,
              status: 'active',
              enabled: true,
              bibSearch: true,
              selfieSearch: true,
              nameSearch: false,
              videoSearch: false,
              videoSelfieSearch: false,
              timelineSearch: true,
              coverImageUrl: null,
              timeZone: 'UTC',
            },
          },
        };
      if (field === 'videoClipping')
        return {
          data: { videoClipping: { requestId: 'r', status: 'processing', videos: [], error: null, clipErrors: [] } },
        };
      return { data: { timelineDays: days } };
    },
  } as unknown as GatewayClient;
  const server = http.createServer(
    createRestHandler({
      routes: ROUTES,
      gateway,
      bodyLimitBytes: 1024,
      uploadLimits: { maxFileBytes: 1024, maxFiles: 1, selfieMaxBytes: 1024 },
      logger: createLogger('test'),
      version: 't',
      metrics: new ServiceMetrics('test-conditional'),
      trustProxy: compileTrustProxy('loopback'),
      contentVersions: { current: async () => state.version },
      sharedReads: new SharedReads(),
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/ext/1/event/2`;
  return { url, calls, state, close: () => new Promise((r) => server.close(r)) };
}

/** A raw GET (fetch would decompress and hide Content-Encoding). */
function get(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

const key = { 'x-api-key': 'k' };

describe('shared reads', () => {
  it('computes a gallery-like answer once per content version; every caller is still checked', async () => {
    const a = await adapter();
    try {
      const first = await get(`${a.url}/timeline/days`, key);
      const second = await get(`${a.url}/timeline/days`, key);
      expect(second.status).toBe(200);
      expect(second.body.equals(first.body)).toBe(true);
      expect(second.headers.etag).toBe(first.headers.etag);
      expect(a.calls).toEqual(['timelineDays', 'authorize']);

      a.state.authorize = { errors: [{ message: 'The API key is invalid', extensions: { code: 'FORBIDDEN' } }] };
      expect((await get(`${a.url}/timeline/days`, key)).status).toBe(403);
      a.state.authorize = { data: { authorize: true } };

      // A change (new version) is seen by the very next request.
      a.state.version = 'v2';
      a.calls.length = 0;
      await get(`${a.url}/timeline/days`, key);
      expect(a.calls).toEqual(['timelineDays']);
      // Without a version (Redis out): the operation every time, no error.
      a.state.version = null;
      a.calls.length = 0;
      expect((await get(`${a.url}/timeline/days`, key)).status).toBe(200);
      expect((await get(`${a.url}/timeline/days`, key)).status).toBe(200);
      expect(a.calls).toEqual(['timelineDays', 'timelineDays']);
    } finally {
      await a.close();
    }
  });

  it('does not share answers that are not marked shared (event details run every time)', async () => {
    const a = await adapter();
    try {
      await get(`${a.url}/details`, key);
      await get(`${a.url}/details`, key);
      expect(a.calls).toEqual(['event', 'event']);
    } finally {
      await a.close();
    }
  });
});

describe('conditional GETs', () => {
  it('tags an answer with the content version and answers a matching If-None-Match 304 without the operation', async () => {
    const a = await adapter();
    try {
      const first = await get(`${a.url}/timeline/days`, key);
      expect(first.status).toBe(200);
      expect(first.headers).toMatchObject({
        'cache-control': 'private, no-cache',
        etag: expect.stringMatching(/^"[\w-]{22}"$/),
      });
      expect(a.calls).toEqual(['timelineDays']);

      a.calls.length = 0;
      const again = await get(`${a.url}/timeline/days`, { ...key, 'if-none-match': first.headers.etag! });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers.etag).toBe(first.headers.etag);
      expect(a.calls).toEqual(['authorize']);

      // Another query of the same event has its own tag.
      const other = await get(`${a.url}/timeline/images?from=0&to=10`, {
        ...key,
        'if-none-match': first.headers.etag!,
      });
      expect(other.status).toBe(200);

      // A new version: the old copy is stale, the answer is whole again.
      a.state.version = 'v2';
      a.calls.length = 0;
      const changed = await get(`${a.url}/timeline/days`, { ...key, 'if-none-match': first.headers.etag! });
      expect(changed.status).toBe(200);
      expect(changed.headers.etag).not.toBe(first.headers.etag);
      expect(a.calls).toEqual(['timelineDays']);
    } finally {
      await a.close();
    }
  });

  it('never answers 304 to a caller the operation would refuse', async () => {
    const a = await adapter();
    try {
      const { headers } = await get(`${a.url}/timeline/days`, key);
      a.state.authorize = {
        errors: [{ message: 'Rate limit exceeded', extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 3 } }],
      };
      const limited = await get(`${a.url}/timeline/days`, { ...key, 'if-none-match': headers.etag! });
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBe('3');
      a.state.authorize = { errors: [{ message: 'flag timelineSearch is off', extensions: { code: 'FORBIDDEN' } }] };
      expect((await get(`${a.url}/timeline/days`, { ...key, 'if-none-match': headers.etag! })).status).toBe(403);
      expect((await get(`${a.url}/timeline/days`, { 'if-none-match': headers.etag! })).status).toBe(401);
    } finally {
      await a.close();
    }
  });

  it('without a content version (Redis out) answers in full, untagged', async () => {
    const a = await adapter();
    try {
      a.state.version = null;
      const res = await get(`${a.url}/timeline/days`, { ...key, 'if-none-match': '"anything"' });
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBeUndefined();
      expect(a.calls).toEqual(['timelineDays']);
    } finally {
      await a.close();
    }
  });

  it('tags a clipping result by its body: 304 when unchanged, after the operation ran', async () => {
    const a = await adapter();
    try {
      const url = `${a.url}/video-clipping/5a0e8d4e-3f7c-4a50-9d7e-6b1f0b0c1a2b`;
      const first = await get(url, key);
      expect(first.status).toBe(200);
      a.calls.length = 0;
      const again = await get(url, { ...key, 'if-none-match': first.headers.etag! });
      expect(again.status).toBe(304);
      expect(a.calls).toEqual(['videoClipping']);
    } finally {
      await a.close();
    }
  });

  it('compresses a large answer by Accept-Encoding, with the coding in its tag, and revalidates across codings', async () => {
    const a = await adapter({ hours: 200 });
    try {
      const plain = await get(`${a.url}/timeline/days`, key);
      const zipped = await get(`${a.url}/timeline/days`, { ...key, 'accept-encoding': 'gzip' });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers.vary).toMatch(/Accept-Encoding/);
      expect(zipped.body.length).toBeLessThan(plain.body.length / 2);
      expect(JSON.parse(gunzipSync(zipped.body).toString())).toEqual(JSON.parse(plain.body.toString()));
      expect(zipped.headers.etag).toBe(`${plain.headers.etag!.slice(0, -1)}-gzip"`);
      const br = await get(`${a.url}/timeline/days`, { ...key, 'accept-encoding': 'gzip, br' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(
        (
          await get(`${a.url}/timeline/days`, {
            ...key,
            'accept-encoding': 'br',
            'if-none-match': zipped.headers.etag!,
          })
        ).status,
      ).toBe(304);
      const small = await adapter({ hours: 1 });
      try {
        expect(
          (await get(`${small.url}/timeline/days`, { ...key, 'accept-encoding': 'gzip' })).headers['content-encoding'],
        ).toBeUndefined();
      } finally {
        await small.close();
      }
    } finally {
      await a.close();
    }
  });
});
