import { compileTrustProxy, ConditionalDecision, createLogger, RateGrant, ServiceMetrics } from '@em/core';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { createRestHandler } from './app';
import { SharedReads } from './http/conditional';
import { GatewayClient, GraphQLResult } from './gateway-client';
import { parseRateGrant, ReadGrants } from './http/read-grants';
import { ROUTES } from './routes';

/** The adapter in front of a fake gateway (timeline days of `hours` hours) and a content version as set. */
async function adapter(opts: { authorize?: GraphQLResult; hours?: number; readGrants?: ReadGrants } = {}) {
  const calls: string[] = [];
  const state = {
    version: 'v1' as string | null,
    authorize: opts.authorize ?? { data: { authorize: true } },
    grant: { window: 60, subject: 'key:7', limit: 100 } as RateGrant | null,
  };
  const days = [
    { date: '2026-05-01', total: 3, hours: Array.from({ length: opts.hours ?? 2 }, (_, hour) => ({ hour, count: 1 })) },
  ];
  const gateway = {
    executeForGrant: async (query: string) => {
      calls.push(`${/\{\s*(\w+)/.exec(query)![1]} (grant)`);
      return { result: state.authorize, grant: state.grant };
    },
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
      readGrants: opts.readGrants,
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

  it("shares the event's details too: the operation once per version, every caller checked", async () => {
    const a = await adapter();
    try {
      const first = await get(`${a.url}/details`, key);
      const second = await get(`${a.url}/details`, key);
      expect(second.body.equals(first.body)).toBe(true);
      expect(a.calls).toEqual(['event', 'authorize']);
      a.state.version = 'v2';
      await get(`${a.url}/details`, key);
      expect(a.calls).toEqual(['event', 'authorize', 'event']);
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

describe('read grants: revalidations of a key the gateway just authorised', () => {
  /** A limiter that counts what it is charged and allows `budget` calls, while the event is at `current()`. */
  function limiter(budget: number) {
    const charged: Array<{ subject: string; limit: number }> = [];
    const fake = {
      charged,
      current: (): string | null => 'v1',
      consumeGrantIf: async (
        _cls: string,
        { subject, limit }: RateGrant,
        condition: { key: string; value: string },
      ): Promise<ConditionalDecision> => {
        expect(condition.key).toBe('event-content-version:2');
        if (condition.value !== fake.current()) return { stale: true, current: fake.current() };
        charged.push({ subject, limit });
        const allowed = charged.length <= budget;
        return { allowed, limit: budget, remaining: Math.max(0, budget - charged.length), retryAfterSeconds: 9 };
      },
    };
    return fake;
  }

  it('asks the gateway once, then answers 304 and kept answers alone, charging the same budget each time', async () => {
    const budget = limiter(100);
    const a = await adapter({ readGrants: new ReadGrants(budget, 10_000) });
    try {
      const first = await get(`${a.url}/timeline/days`, key);
      a.calls.length = 0;
      for (let i = 0; i < 3; i++)
        expect((await get(`${a.url}/timeline/days`, { ...key, 'if-none-match': first.headers.etag! })).status).toBe(
          304,
        );
      expect((await get(`${a.url}/timeline/days`, key)).status).toBe(200);
      expect(a.calls).toEqual(['authorize (grant)']);
      expect(budget.charged).toEqual(Array(3).fill({ subject: 'key:7', limit: 100 }));

      // Another caller (host, client address) or another key is asked for again.
      await get(`${a.url}/timeline/days`, { ...key, origin: 'https://other.example' });
      await get(`${a.url}/timeline/days`, { 'x-api-key': 'other' });
      expect(a.calls).toEqual(['authorize (grant)', 'authorize (grant)', 'authorize (grant)']);
    } finally {
      await a.close();
    }
  });

  it('asks again after a new content version, a key change, the lifetime, and never keeps a refusal', async () => {
    let now = 0;
    const budget = limiter(100);
    const grants = new ReadGrants(budget, 10_000, 100, () => now);
    const a = await adapter({ readGrants: grants });
    budget.current = () => a.state.version;
    try {
      const tagOfVersion = async () => (await get(`${a.url}/timeline/days`, key)).headers.etag!;
      let etag = await tagOfVersion();
      const revalidate = () => get(`${a.url}/timeline/days`, { ...key, 'if-none-match': etag });
      await revalidate();
      a.calls.length = 0;
      expect((await revalidate()).status).toBe(304);
      expect(a.calls).toEqual([]);

      a.state.version = 'v2'; // a flag, a setting, the event archived: a new fact
      etag = await tagOfVersion();
      a.calls.length = 0;
      expect((await revalidate()).status).toBe(304);
      expect(a.calls).toEqual(['authorize (grant)']);
      // A change after the grant: its version's tag is no longer current, a full answer, nothing charged for it.
      a.state.version = 'v3';
      const charges = budget.charged.length;
      a.calls.length = 0;
      expect((await revalidate()).status).toBe(200);
      expect(a.calls).toEqual(['timelineDays']);
      expect(budget.charged.length).toBe(charges);
      etag = await tagOfVersion();

      a.calls.length = 0;
      grants.forgetAll(); // a key was deactivated somewhere
      a.state.authorize = { errors: [{ message: 'The API key is inactive', extensions: { code: 'FORBIDDEN' } }] };
      expect((await revalidate()).status).toBe(403);
      expect((await revalidate()).status).toBe(403);
      expect(a.calls).toEqual(['authorize (grant)', 'authorize (grant)']);

      a.state.authorize = { data: { authorize: true } };
      expect((await revalidate()).status).toBe(304);
      now += 10_001;
      a.calls.length = 0;
      expect((await revalidate()).status).toBe(304);
      expect(a.calls).toEqual(['authorize (grant)']);
    } finally {
      await a.close();
    }
  });

  it('a Redis failure in the one-script check takes the slower path: the gateway is asked, never a 500', async () => {
    const budget = limiter(100);
    const a = await adapter({ readGrants: new ReadGrants(budget, 10_000) });
    try {
      const { headers } = await get(`${a.url}/timeline/days`, key);
      const revalidate = () => get(`${a.url}/timeline/days`, { ...key, 'if-none-match': headers.etag! });
      expect((await revalidate()).status).toBe(304);
      budget.consumeGrantIf = () => Promise.reject(new Error('Connection is closed.'));
      a.calls.length = 0;
      expect((await revalidate()).status).toBe(304);
      expect(a.calls).toEqual(['authorize (grant)']);
    } finally {
      await a.close();
    }
  });

  it('a spent budget is the 429 the gateway gives; a bearer token and a missing grant always ask the gateway', async () => {
    const a = await adapter({ readGrants: new ReadGrants(limiter(1), 10_000) });
    try {
      const { headers } = await get(`${a.url}/timeline/days`, key);
      const revalidate = (h: Record<string, string>) =>
        get(`${a.url}/timeline/days`, { ...h, 'if-none-match': headers.etag! });
      expect((await revalidate(key)).status).toBe(304); // the gateway's check, grant kept
      expect((await revalidate(key)).status).toBe(304); // charged here: 1 of 1
      const limited = await revalidate(key);
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBe('9');
      expect(JSON.parse(limited.body.toString()).message).toBe(
        'Rate limit exceeded (1 calls per window); retry in 9 s',
      );

      a.calls.length = 0;
      const bearer = { authorization: 'Bearer t' };
      await get(`${a.url}/timeline/days`, bearer);
      await revalidate(bearer);
      await revalidate(bearer);
      expect(a.calls).toEqual(['authorize', 'authorize', 'authorize']); // a kept answer, then two revalidations

      a.state.grant = null; // a gateway that does not give one
      a.calls.length = 0;
      await revalidate({ 'x-api-key': 'k2' });
      await revalidate({ 'x-api-key': 'k2' });
      expect(a.calls).toEqual(['authorize (grant)', 'authorize (grant)']);
    } finally {
      await a.close();
    }
  });
});

describe('ReadGrants for any address', () => {
  const facts = (address: string, origin = 'http://localhost') => ({
    headers: { 'x-api-key': 'k', origin, 'x-forwarded-for': address },
    operation: 'photos',
    orgId: 1,
    eventId: 2,
  });
  const browserGrant = (address: string): RateGrant => ({
    window: 60,
    subject: `key:7:client:${address}`,
    limit: 10,
    shared: { subject: 'key:7', limit: 100 },
    failures: { window: 60, limit: 3, address },
    anyAddress: { visitorPrefix: 'key:7:client:' },
  });
  function recording() {
    const calls: Array<{ subject: string; unlessFailed?: { current: string; previous: string; limit: number } }> = [];
    return {
      calls,
      consumeGrantIf: async (
        _cls: string,
        grant: RateGrant,
        _condition: unknown,
        _units?: number,
        _now?: number,
        unlessFailed?: { current: string; previous: string; limit: number },
      ): Promise<ConditionalDecision> => {
        calls.push({ subject: grant.subject, unlessFailed });
        return { allowed: true, limit: grant.limit, remaining: 1, retryAfterSeconds: 1 };
      },
    };
  }

  it("serves every visitor of the key's origin, each charged its own network, its address checked for failures", async () => {
    const limiter = recording();
    const grants = new ReadGrants(limiter, 10_000, 100, () => 120_000);
    grants.keep(grants.keyOf(facts('198.51.100.1'))!, browserGrant('198.51.100.1'), 'v1');
    const other = grants.keyOf(facts('2001:db8:1:2::5'))!;
    expect(grants.versionOf(other)).toBe('v1');
    expect(await grants.charge(other, 2)).toBe(true);
    expect(limiter.calls).toEqual([
      {
        subject: 'key:7:client:2001:db8:1:2::/64',
        unlessFailed: {
          current: 'authfail:2001:db8:1:2::/64:2',
          previous: 'authfail:2001:db8:1:2::/64:1',
          limit: 3,
        },
      },
    ]);
    expect(grants.versionOf(grants.keyOf(facts('198.51.100.2', 'http://evil.example'))!)).toBeNull();
    expect(grants.versionOf(grants.keyOf({ ...facts('198.51.100.2'), operation: 'timelineDays' })!)).toBeNull();
  });

  it("keeps per address a grant that does not hold for any, or whose subject is not the forwarded address's", async () => {
    const limiter = recording();
    const grants = new ReadGrants(limiter, 10_000, 100, () => 0);
    const { anyAddress: _dropped, ...ipEntry } = browserGrant('198.51.100.1');
    grants.keep(grants.keyOf(facts('198.51.100.1'))!, ipEntry, 'v1');
    // The gateway saw another address than the one forwarded (it does not trust this adapter's X-Forwarded-For).
    grants.keep(grants.keyOf(facts('198.51.100.3'))!, browserGrant('127.0.0.1'), 'v1');
    expect(grants.versionOf(grants.keyOf(facts('198.51.100.2'))!)).toBeNull();
    const own = grants.keyOf(facts('198.51.100.3'))!;
    expect(await grants.charge(own, 2)).toBe(true);
    expect(limiter.calls[0].subject).toBe('key:7:client:127.0.0.1');
  });

  it("shares no grant whose failures the gateway counted under another address; its own checks the gateway's", async () => {
    const limiter = recording();
    const grants = new ReadGrants(limiter, 10_000, 100, () => 120_000);
    // A server key's grant (no visitor budget) from a gateway that does not trust this adapter's X-Forwarded-For.
    const serverKey: RateGrant = {
      window: 60,
      subject: 'key:8',
      limit: 10,
      failures: { window: 60, limit: 3, address: '127.0.0.1' },
      anyAddress: {},
    };
    grants.keep(grants.keyOf(facts('198.51.100.3'))!, serverKey, 'v1');
    expect(grants.versionOf(grants.keyOf(facts('198.51.100.4'))!)).toBeNull();
    expect(await grants.charge(grants.keyOf(facts('198.51.100.3'))!, 2)).toBe(true);
    expect(limiter.calls).toEqual([
      {
        subject: 'key:8',
        unlessFailed: { current: 'authfail:127.0.0.1:2', previous: 'authfail:127.0.0.1:1', limit: 3 },
      },
    ]);
  });

  it('a throttled address or a moved version is not served: the gateway is asked', async () => {
    const grants = new ReadGrants(
      { consumeGrantIf: async () => ({ stale: true, current: null }) },
      10_000,
      100,
      () => 0,
    );
    grants.keep(grants.keyOf(facts('198.51.100.1'))!, browserGrant('198.51.100.1'), 'v1');
    expect(await grants.charge(grants.keyOf(facts('198.51.100.9'))!, 2)).toBe(false);
  });
});

describe('parseRateGrant', () => {
  it('takes only what the gateway writes', () => {
    const grant = {
      window: 60,
      subject: 'key:1:client:10.0.0.0/24',
      limit: 600,
      shared: { subject: 'key:1', limit: 6000 },
      failures: { window: 60, limit: 120 },
      anyAddress: { visitorPrefix: 'key:1:client:' },
    };
    expect(parseRateGrant(JSON.stringify(grant))).toEqual(grant);
    for (const bad of [
      undefined,
      'not json',
      '{"window":60,"subject":"s"}',
      '{"window":0,"subject":"s","limit":1}',
      '{"window":60,"subject":"s","limit":-1}',
      '{"window":60,"subject":"s","limit":1,"shared":{"subject":5,"limit":1}}',
      `{"window":60,"subject":"${'x'.repeat(2000)}","limit":1}`,
      '{"window":60,"subject":"s","limit":1,"failures":{"window":60}}',
      '{"window":60,"subject":"s","limit":1,"failures":null}',
      '{"window":60,"subject":"s","limit":1,"anyAddress":null}',
      '{"window":60,"subject":"s","limit":1,"anyAddress":{"visitorPrefix":7}}',
    ])
      expect(parseRateGrant(bad)).toBeNull();
  });
});
