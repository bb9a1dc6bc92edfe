import path from 'node:path';
import sharp from 'sharp';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { connectRedis } from '@em/core';
import { JOBS } from '@em/core/jobs';
import {
  api,
  cfg,
  closeDb,
  expectError,
  expectSuccess,
  fixtures,
  gql,
  info,
  postForm,
  postJson,
  sql,
  waitForPipeline,
} from './support/platform';

const DEMO_PHOTOS = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
const demo = `/${info.demo.orgId}/event/${info.demo.eventId}`;
const EMPTY_PAGE = {
  total: 0,
  currentPage: 0,
  totalPages: 0,
  hasNextPage: false,
  hasPreviousPage: false,
  page_size: 32,
};

/** A selfie: a face the ml-worker found on a demo photo, cut out with a margin, as a phone would frame it. */
async function selfieOf(face: { file: string; x: number; y: number; w: number; h: number }): Promise<Buffer> {
  const file = path.join(DEMO_PHOTOS, face.file);
  const { width, height } = await sharp(file).metadata();
  const left = Math.max(0, Math.round((face.x - face.w * 0.3) * width));
  const top = Math.max(0, Math.round((face.y - face.h * 0.3) * height));
  return sharp(file)
    .extract({
      left,
      top,
      width: Math.min(width - left, Math.round(face.w * 1.6 * width)),
      height: Math.min(height - top, Math.round(face.h * 1.6 * height)),
    })
    .resize(480)
    .jpeg()
    .toBuffer();
}

/** Events created in the demo organisation by these tests, removed afterwards (other suites count the demo's events). */
const created: number[] = [];
async function demoOrgEvent(flags: Parameters<typeof fixtures.event>[1]): Promise<number> {
  const id = await fixtures.event(info.demo.orgId, flags);
  created.push(id);
  return id;
}
afterAll(async () => {
  if (created.length) await sql('delete from events where id = any($1::int[])', [created]);
  await closeDb();
});

async function demoFaces() {
  return sql<{ photo_id: string; file: string; x: number; y: number; w: number; h: number }>(
    `select p.id as photo_id, p.original_file_name as file, f.box_x as x, f.box_y as y, f.box_width as w, f.box_height as h
       from faces f join photos p on p.id = f.photo_id where p.event_id = $1 order by f.box_width desc`,
    [info.demo.eventId],
  );
}

describe('face search by selfie (POST /faces, GET /faces/{request_id})', () => {
  let key: string;
  let face: Awaited<ReturnType<typeof demoFaces>>[number];
  let selfie: Buffer;
  let requestId: string;

  beforeAll(async () => {
    key = await fixtures.apiKey(info.demo.orgId);
    [face] = await demoFaces();
    selfie = await selfieOf(face);
  });

  it('finds the photo of the person on the selfie, best match first, and generates a request_id', async () => {
    const data = expectSuccess(await postForm(`${demo}/faces`, key, selfie));
    expect(data.request_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(data.confidence_percentage).toBe(58);
    expect(data.images[0].image_id).toBe(face.photo_id);
    expect(Object.keys(data.images[0]).sort()).toEqual([
      'height',
      'image_id',
      'img_url',
      'original_url',
      'thumbnail_url',
      'width',
    ]);
    expect(data.images[0].original_url).toBeNull();
    expect(data.pagination).toMatchObject({ total: data.images.length, currentPage: 1, page_size: 32 });
    // Each of the demo's six group photos shows different people: a selfie finds only a few of them.
    expect(data.images.length).toBeLessThanOrEqual(3);
    requestId = data.request_id;
    const [row] = await sql(
      'select billable, cache_hits, faces_found, matches from face_searches where request_id = $1',
      [requestId],
    );
    expect(row).toMatchObject({ billable: true, cache_hits: 0, faces_found: 1 });
    expect(row.matches[0]).toEqual({ photoId: face.photo_id, confidence: expect.any(Number) });
    expect(row.matches[0].confidence).toBeGreaterThanOrEqual(60);
  });

  it('a retry with the same request_id answers the stored result without matching again, and is not billed', async () => {
    const before = await gql(
      `{ faceSearchUsage(orgId: ${info.demo.orgId}) { billableSearches cachedRetries } }`,
      {},
      key,
    );
    // Even another picture: a stored result is never matched again.
    const other = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#777' } })
      .png()
      .toBuffer();
    const data = expectSuccess(await postForm(`${demo}/faces`, key, other, { request_id: requestId.toUpperCase() }));
    expect(data.request_id).toBe(requestId);
    expect(data.images[0].image_id).toBe(face.photo_id);
    const after = await gql(
      `{ faceSearchUsage(orgId: ${info.demo.orgId}) { billableSearches cachedRetries } }`,
      {},
      key,
    );
    expect(after.body.data.faceSearchUsage.billableSearches).toBe(before.body.data.faceSearchUsage.billableSearches);
    expect(after.body.data.faceSearchUsage.cachedRetries).toBe(before.body.data.faceSearchUsage.cachedRetries + 1);
  });

  it('a fresh request_id chosen by the client is used and billed once', async () => {
    const mine = randomUUID();
    const before = await gql(
      `{ faceSearchUsage(orgId: ${info.demo.orgId}, eventId: ${info.demo.eventId}) { billableSearches } }`,
      {},
      key,
    );
    const data = expectSuccess(await postForm(`${demo}/faces`, key, selfie, { request_id: mine }));
    expect(data.request_id).toBe(mine);
    expect(data.images[0].image_id).toBe(face.photo_id);
    const after = await gql(
      `{ faceSearchUsage(orgId: ${info.demo.orgId}, eventId: ${info.demo.eventId}) { billableSearches } }`,
      {},
      key,
    );
    expect(after.body.data.faceSearchUsage.billableSearches).toBe(
      before.body.data.faceSearchUsage.billableSearches + 1,
    );
  });

  it('GET reads the stored result and pages it, stable across pages', async () => {
    const all = expectSuccess(await api(`${demo}/faces/${requestId}`, { key }));
    expect(all.request_id).toBe(requestId);
    expect(all.images[0].image_id).toBe(face.photo_id);
    const ids: string[] = [];
    for (let page = 1; page <= all.pagination.total; page++) {
      const one = expectSuccess(await api(`${demo}/faces/${requestId}?page=${page}&page_size=1`, { key }));
      expect(one.pagination).toMatchObject({
        total: all.pagination.total,
        currentPage: page,
        totalPages: all.pagination.total,
        page_size: 1,
      });
      ids.push(one.images[0].image_id);
    }
    expect(ids).toEqual(all.images.map((i: any) => i.image_id));
    const past = expectSuccess(await api(`${demo}/faces/${requestId}?page=50`, { key }));
    expect(past.images).toEqual([]);
  });

  it('GET: an unknown request_id is 404, a malformed one 400, another event or organisation cannot see it', async () => {
    expectError(await api(`${demo}/faces/${randomUUID()}`, { key }), 404);
    expectError(await api(`${demo}/faces/not-a-uuid`, { key }), 400);
    const otherEvent = await demoOrgEvent({ selfieSearch: true });
    expectError(await api(`/${info.demo.orgId}/event/${otherEvent}/faces/${requestId}`, { key }), 404);
    const stranger = await fixtures.organisation();
    const strangerEvent = await fixtures.event(stranger.orgId, { selfieSearch: true });
    expectError(await api(`/${stranger.orgId}/event/${strangerEvent}/faces/${requestId}`, { key: stranger.key }), 404);
    expectError(await api(`${demo}/faces/${requestId}`, { key: stranger.key }), 403);
  });

  it('a POST reusing a request_id of another event is a fresh search of this event, not a leak of its result', async () => {
    const otherEvent = await demoOrgEvent({ selfieSearch: true });
    const data = expectSuccess(
      await postForm(`/${info.demo.orgId}/event/${otherEvent}/faces`, key, selfie, { request_id: requestId }),
    );
    expect({ request_id: data.request_id, images: data.images }).toEqual({ request_id: requestId, images: [] });
  });

  it('a picture without a face: 200 with no images and the empty pagination', async () => {
    const blank = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#3a6' } })
      .jpeg()
      .toBuffer();
    const data = expectSuccess(await postForm(`${demo}/faces`, key, blank));
    expect(data.images).toEqual([]);
    expect(data.pagination).toEqual(EMPTY_PAGE);
    const [row] = await sql('select faces_found, embedding from face_searches where request_id = $1', [
      data.request_id,
    ]);
    expect(row).toEqual({ faces_found: 0, embedding: null });
    expect(expectSuccess(await api(`${demo}/faces/${data.request_id}`, { key })).pagination).toEqual(EMPTY_PAGE);
  });

  it('a face of nobody in the event: 200 with no images', async () => {
    const event = await demoOrgEvent({ selfieSearch: true });
    const data = expectSuccess(await postForm(`/${info.demo.orgId}/event/${event}/faces`, key, selfie));
    expect(data.images).toEqual([]);
    expect(data.pagination).toEqual(EMPTY_PAGE);
  });

  it('the demo journey: the request_id downloads the originals of the photos found', async () => {
    const data = expectSuccess(
      await postJson(`${demo}/original-photos`, key, { method: 'selfie', identifier: requestId }),
    );
    expect(data.identifier).toBe(requestId);
    const found = expectSuccess(await api(`${demo}/faces/${requestId}`, { key }));
    expect(data.successful_count).toBe(found.pagination.total);
    expect(data.presigned_urls[0].filename).toBe(face.file);
    const res = await fetch(data.presigned_urls[0].url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain(face.file);
    const original = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect(original.format).toBe('jpeg');
  });

  it('reports the event threshold as confidence_percentage', async () => {
    await sql('update events set confidence_threshold = 70 where id = $1', [info.demo.eventId]);
    try {
      const data = expectSuccess(await postForm(`${demo}/faces`, key, selfie));
      expect(data.confidence_percentage).toBe(70);
      expect(data.images[0].image_id).toBe(face.photo_id);
    } finally {
      await sql('update events set confidence_threshold = null where id = $1', [info.demo.eventId]);
    }
  });

  it('reports the threshold it applied: 58 when the event sets none, for POST, GET and GraphQL', async () => {
    const data = expectSuccess(await postForm(`${demo}/faces`, key, selfie));
    expect(data.confidence_percentage).toBe(58);
    expect(expectSuccess(await api(`${demo}/faces/${data.request_id}`, { key })).confidence_percentage).toBe(58);
    const query = `query($o: Int!, $e: Int!, $r: String!) { faceSearch(orgId: $o, eventId: $e, requestId: $r) { confidencePercentage } }`;
    const read = await gql(query, { o: info.demo.orgId, e: info.demo.eventId, r: data.request_id }, key);
    expect(read.body.data.faceSearch.confidencePercentage).toBe(58);
    // A search stored before the threshold was recorded was matched with the default too.
    const older = randomUUID();
    await sql(
      `insert into face_searches (request_id, organisation_id, event_id, matches, faces_found) values ($1, $2, $3, '[]'::jsonb, 1)`,
      [older, info.demo.orgId, info.demo.eventId],
    );
    expect(expectSuccess(await api(`${demo}/faces/${older}`, { key })).confidence_percentage).toBe(58);
  });
});

describe('face search: the selfie cannot be embedded', () => {
  it(
    'no embedding worker answers in time: 500 in the envelope, nothing recorded, and a retry with the same request_id works',
    async () => {
      const key = await fixtures.apiKey(info.demo.orgId);
      const [face] = await demoFaces();
      const selfie = await selfieOf(face);
      const requestId = randomUUID();
      const redis = connectRedis(cfg.REDIS_URL);
      const selfies = new Queue(JOBS.selfies.queue, { connection: redis });
      await selfies.pause();
      try {
        const res = await postForm(`${demo}/faces`, key, selfie, { request_id: requestId });
        expectError(res, 500);
        expect(res.body.message).toMatch(/same request_id/);
        expect(await sql('select 1 from face_searches where request_id = $1', [requestId])).toEqual([]);
      } finally {
        await selfies.resume();
        await selfies.close();
        redis.disconnect();
      }
      const retry = expectSuccess(await postForm(`${demo}/faces`, key, selfie, { request_id: requestId }));
      expect(retry.request_id).toBe(requestId);
      expect(retry.images[0].image_id).toBe(face.photo_id);
      const [row] = await sql('select billable, cache_hits from face_searches where request_id = $1', [requestId]);
      expect(row).toMatchObject({ billable: true, cache_hits: 0 });
    },
    (cfg.SELFIE_EMBED_TIMEOUT_SECONDS + 60) * 1000,
  );
});

describe('face search: the selfie queue is longer than its wait (a surge)', () => {
  it('503 with Retry-After at once for the search and the clipping start, nothing recorded; a retry with the same request_id works', async () => {
    const key = await fixtures.apiKey(info.demo.orgId);
    const [face] = await demoFaces();
    const selfie = await selfieOf(face);
    const requestId = randomUUID();
    const clipEvent = await demoOrgEvent({ videoSearch: true, videoSelfieClipping: true });
    const redis = connectRedis(cfg.REDIS_URL);
    const selfies = new Queue(JOBS.selfies.queue, { connection: redis });
    await selfies.pause();
    try {
      // More selfies ahead than the ml-worker's threads embed within the timeout, even at 50 ms each.
      const workers = Math.max(1, await selfies.getWorkersCount());
      const ahead = Math.ceil((cfg.SELFIE_EMBED_TIMEOUT_SECONDS * 1000) / 50) * workers;
      await selfies.addBulk(
        Array.from({ length: ahead }, () => ({ name: JOBS.selfies.job, data: { imageKey: 'selfie-image:none' } })),
      );
      const started = Date.now();
      const res = await postForm(`${demo}/faces`, key, selfie, { request_id: requestId });
      expect(Date.now() - started).toBeLessThan(10_000);
      expectError(res, 503);
      expect(res.body.message).toMatch(/busy.*retry in \d+ s/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await sql('select 1 from face_searches where request_id = $1', [requestId])).toEqual([]);

      const clip = await postForm(
        `/${info.demo.orgId}/event/${clipEvent}/video-clipping/search-by-selfie`,
        key,
        selfie,
        {
          request_id: requestId,
        },
      );
      expectError(clip, 503);
      expect(Number(clip.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await sql('select 1 from clip_requests where request_id = $1', [requestId])).toEqual([]);
      // Nothing was queued for the refused selfies.
      expect(await selfies.count()).toBe(ahead);
    } finally {
      await selfies.drain();
      await selfies.resume();
      await selfies.close();
      redis.disconnect();
    }
    const retry = expectSuccess(await postForm(`${demo}/faces`, key, selfie, { request_id: requestId }));
    expect(retry.request_id).toBe(requestId);
    expect(retry.images[0].image_id).toBe(face.photo_id);
  }, 60_000);
});

describe('face search: bad input', () => {
  let key: string;
  // A key per test: face matching has a budget of 8 calls per 5 s window in this run.
  beforeEach(async () => {
    key = await fixtures.apiKey(info.demo.orgId);
  });

  it.each([
    ['an invalid request_id', Buffer.from('x'), { request_id: 'not-a-uuid' }, 400],
    ['an empty file', Buffer.alloc(0), {}, 400],
    ['a file that is not an image', Buffer.from('hello, I am a text file'), {}, 400],
    ['a truncated JPEG', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]), {}, 400],
    ['a file above the selfie limit (3 MB in this run)', Buffer.alloc(3 * 1024 * 1024 + 10, 1), {}, 413],
  ])('%s is refused (%#)', async (_name, file, fields, status) => {
    expectError(await postForm(`${demo}/faces`, key, file, fields), status);
  });

  it('no file at all is a 400 (multipart with only a request_id, or a JSON body)', async () => {
    expectError(await postForm(`${demo}/faces`, key, null, { request_id: randomUUID() }), 400);
    expectError(await postJson(`${demo}/faces`, key, { request_id: randomUUID() }), 400);
  });

  it('two files are a 400', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('a')]), 'a.jpg');
    form.append('file', new Blob([Buffer.from('b')]), 'b.jpg');
    expectError(await api(`${demo}/faces`, { key, method: 'POST', body: form }), 400);
  });

  it('the selfie_search flag off is a 403, for POST and GET', async () => {
    const event = await demoOrgEvent({ selfieSearch: false });
    const blank = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    expectError(await postForm(`/${info.demo.orgId}/event/${event}/faces`, key, blank), 403);
    expectError(await api(`/${info.demo.orgId}/event/${event}/faces/${randomUUID()}`, { key }), 403);
  });

  it('paging parameters are checked as everywhere (page_size above 100 is clamped)', async () => {
    const blank = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    expectError(await postForm(`${demo}/faces?page=0`, key, blank), 400);
    const data = expectSuccess(await postForm(`${demo}/faces?page_size=500`, key, blank));
    expect(data.pagination.page_size).toBe(100);
  });
});

describe('face search: the stricter rate limit of face matching', () => {
  const WINDOW_MS = 5000;
  const startOfNextWindow = () => new Promise((r) => setTimeout(r, WINDOW_MS - (Date.now() % WINDOW_MS) + 20));

  it('fresh searches past the matching budget (8 in this run) get 429; a retry of a stored request_id still passes', async () => {
    const key = await fixtures.apiKey(info.demo.orgId);
    const blank = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const stored = expectSuccess(await postForm(`${demo}/faces`, key, blank)).request_id;
    await startOfNextWindow();
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++)
      statuses.push((await postForm(`${demo}/faces`, key, blank, { request_id: 'bad' })).status);
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 400, 400, 429]);
    const limited = await postForm(`${demo}/faces`, key, blank, { request_id: randomUUID() });
    expectError(limited, 429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(expectSuccess(await postForm(`${demo}/faces`, key, blank, { request_id: stored })).request_id).toBe(stored);
    // Reads are another budget.
    expectSuccess(await api(`${demo}/faces/${stored}`, { key }));
  });
});

describe('face index freshness', () => {
  /** Imports photos through the REST pipeline and processes them; returns their image ids by file name. */
  async function importAndProcess(
    base: string,
    key: string,
    files: Array<[string, Buffer]>,
  ): Promise<Map<string, string>> {
    const form = new FormData();
    for (const [name, content] of files)
      form.append('files', new Blob([new Uint8Array(content)], { type: 'image/jpeg' }), name);
    const report = expectSuccess(await api(`${base}/pipeline/photos/import`, { key, method: 'POST', body: form }));
    expectSuccess(await api(`${base}/pipeline/photos/process`, { key, method: 'POST' }));
    await waitForPipeline(base, key);
    return new Map(report.files.map((f: any) => [f.key, f.image_id]));
  }

  it('photos that go live after a search are found by the next search (the index loads what is new)', async () => {
    const { orgId, key } = await fixtures.organisation();
    const eventId = await fixtures.event(orgId, { selfieSearch: true });
    const base = `/${orgId}/event/${eventId}`;
    const [face] = await demoFaces();
    const original = await sharp(path.join(DEMO_PHOTOS, face.file)).toBuffer();
    const first = await importAndProcess(base, key, [['first.jpg', original]]);
    expectSuccess(await api(`${base}/pipeline/photos/go-live`, { key, method: 'POST' }));
    const selfie = await selfieOf(face);
    const before = expectSuccess(await postForm(`${base}/faces`, key, selfie));
    expect(before.images.map((i: any) => i.image_id)).toEqual([first.get('first.jpg')]);

    // The same scene again, mirrored and cut: another photo of the same person, published as it finishes.
    const again = await sharp(original).flop().resize(1200).jpeg({ quality: 85 }).toBuffer();
    const second = await importAndProcess(base, key, [['second.jpg', again]]);
    const after = expectSuccess(await postForm(`${base}/faces`, key, selfie));
    expect(after.images.map((i: any) => i.image_id).sort()).toEqual(
      [first.get('first.jpg'), second.get('second.jpg')].sort(),
    );
    // The first search's stored result is unchanged.
    expect(expectSuccess(await api(`${base}/faces/${before.request_id}`, { key })).images).toHaveLength(1);
  });
});
