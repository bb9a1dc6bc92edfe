import { buildSlideshow } from '@em/platform';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { randomUUID } from 'node:crypto';
import {
  API,
  api,
  closeDb,
  expectError,
  expectSuccess,
  fixtures,
  info,
  postForm,
  sql,
  store,
  waitForPipeline,
} from '../support/platform';
import { DEMO_PHOTOS, faceCrop } from '../support/demo-faces';

/**
 * Security regressions of the media paths: image and selfie sizes, video containers that name other
 * files, error leaks, clip expiry.
 */

const mlWorkerPort = JSON.parse(process.env.E2E_PORTS!).mlWorker as number;

/** A valid PNG of the given size, 1-bit grey and all black: a few KB on disk, `width*height` pixels decoded. */
function hugePng(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // greyscale
  const raw = Buffer.alloc(height * (1 + Math.ceil(width / 8))); // filter byte 0 + zero pixels per row
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

async function importUpload(base: string, key: string, name: string, content: Buffer) {
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(content)], { type: 'image/png' }), name);
  const res = await fetch(`${API}${base}/pipeline/photos/import`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form,
  });
  return { status: res.status, body: await res.json() };
}

async function addVideo(
  orgId: number,
  eventId: number,
  key: string,
  content: Buffer,
  fileName: string,
  sourceKey: string,
) {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      query:
        'mutation($o: Int!, $e: Int!, $f: Upload, $k: String) { addEventVideo(orgId: $o, eventId: $e, file: $f, sourceKey: $k) { id status } }',
      variables: { o: orgId, e: eventId, f: null, k: sourceKey },
    }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.f'] }));
  form.append('0', new Blob([new Uint8Array(content)], { type: 'video/mp4' }), fileName);
  const res = await fetch(info.gatewayUrl, {
    method: 'POST',
    headers: { 'x-api-key': key, 'apollo-require-preflight': 'true' },
    body: form,
  });
  return { status: res.status, body: await res.json() };
}

/** What an error message shown to an API client must never contain. */
function expectNoLeak(message: unknown): void {
  const text = String(message);
  expect(text).not.toMatch(/\/tmp\b|em-upload-|em-video-|em-clips-/);
  expect(text).not.toContain(info.env.DATA_DIR ?? '/nonexistent-data-dir');
  expect(text).not.toMatch(/ffmpeg version|ffprobe version|configuration: --|libav\w+|Invalid data found|\[\w+ @ 0x/i);
}

async function workerHealthy(): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${mlWorkerPort}/health/live`, { signal: AbortSignal.timeout(5000) });
  expect(res.status).toBe(200);
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('security: media (images, selfies, videos, clips)', () => {
  let orgId: number;
  let key: string;
  let eventId: number;
  let base: string;
  const dir = mkdtempSync(path.join(tmpdir(), 'em-sec-media-'));
  const huge = hugePng(16000, 16000);

  beforeAll(async () => {
    ({ orgId, key } = await fixtures.organisation());
    eventId = await fixtures.event(orgId, { videoSearch: true, videoSelfieClipping: true, selfieSearch: true });
    await sql('update events set clip_padding_start_seconds = 0, clip_padding_end_seconds = 0 where id = $1', [
      eventId,
    ]);
    base = `/${orgId}/event/${eventId}`;
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await closeDb();
  });

  it('#6 a 16000x16000 PNG is refused at import with the reason, and the ml-worker stays healthy', async () => {
    expect(huge.length).toBeLessThan(1024 * 1024);
    const res = await importUpload(base, key, 'huge.png', huge);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ imported: 0, rejected: 1 });
    expect(res.body.data.files[0]).toMatchObject({ key: 'huge.png', status: 'rejected' });
    expect(res.body.data.files[0].reason).toMatch(/256 megapixels.*limit.*50 megapixels/);
    const [{ n }] = await sql('select count(*)::int as n from photos where event_id = $1', [eventId]);
    expect(n).toBe(0);
    await workerHealthy();
  });

  it('#6 a selfie with huge dimensions is a 413 in the envelope, not a 500 (face search and clipping)', async () => {
    const started = Date.now();
    const search = await postForm(`${base}/faces`, key, huge, {}, 'selfie.png');
    expectError(search, 413);
    expect(search.body.message).toMatch(/megapixels/);
    expectError(await postForm(`${base}/video-clipping/search-by-selfie`, key, huge, {}, 'selfie.png'), 413);
    expect(Date.now() - started).toBeLessThan(5000);
    await workerHealthy();
  });

  it('#6 an oversized original that reaches the ml-worker anyway (stored before the limit) fails fast, and the worker stays healthy', async () => {
    const id = randomUUID();
    const originalKey = `originals/${eventId}/${id}.png`;
    await store.put(originalKey, huge, 'image/png');
    await sql(
      `insert into photos (id, event_id, status, content_hash, original_key, original_file_name, mime_type, width, height, source)
       values ($1, $2, 'imported', $3, $4, 'huge.png', 'image/png', 16000, 16000, 'test')`,
      [id, eventId, `hash-${id}`, originalKey],
    );
    const started = Date.now();
    expect(expectSuccess(await api(`${base}/pipeline/photos/process`, { key, method: 'POST' }))).toEqual({ queued: 1 });
    const status = await waitForPipeline(base, key, 90_000);
    expect(status).toMatchObject({ failed: 1, processed: 0 });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(status.failures).toEqual([{ reason: expect.stringMatching(/256 megapixels.*limit/), count: 1 }]);
    await workerHealthy();
  }, 120_000);

  it('#9 an HLS playlist naming local and remote files is refused at upload, and none of them is read', async () => {
    const segment = path.join(dir, 'segment.ts');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=2:size=320x240:rate=10',
      segment,
    ]);
    const hits: string[] = [];
    const server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'video/mp2t' });
      res.end(readFileSync(segment));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const remote = `http://127.0.0.1:${(server.address() as AddressInfo).port}/segment.ts`;
    try {
      for (const target of [segment, remote, '/etc/passwd']) {
        const playlist = `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:2.0,\n${target}\n#EXT-X-ENDLIST\n`;
        for (const name of ['camera.m3u8', 'camera.mp4']) {
          const res = await addVideo(orgId, eventId, key, Buffer.from(playlist), name, `hls-${hits.length}-${name}`);
          expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
          expect(res.body.errors[0].message).toMatch(/playlist|not a readable video/i);
          expectNoLeak(res.body.errors[0].message);
          expect(res.body.errors[0].message).not.toContain('root:');
        }
      }
      expect(hits).toEqual([]);
      const [{ n }] = await sql('select count(*)::int as n from videos where event_id = $1', [eventId]);
      expect(n).toBe(0);
    } finally {
      server.close();
    }
  });

  it('#9 a concat list is refused at upload', async () => {
    for (const list of [
      'ffconcat version 1.0\nfile upload\n',
      `ffconcat version 1.0\nfile '${path.join(dir, 'segment.ts')}'\n`,
      "file 'segment.ts'\n",
    ]) {
      const res = await addVideo(orgId, eventId, key, Buffer.from(list), 'camera.mp4', 'concat');
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
      expectNoLeak(res.body.errors[0].message);
    }
  });

  it('#16 a corrupt video upload and a corrupt image import give messages without temp paths, the data dir or ffmpeg output', async () => {
    const real = path.join(dir, 'real.mp4');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=2:size=320x240:rate=10',
      '-pix_fmt',
      'yuv420p',
      real,
    ]);
    const corrupt = Buffer.from(readFileSync(real));
    corrupt.fill(0x41, 16, 2000); // the header boxes are wrecked, the size is right
    const video = await addVideo(orgId, eventId, key, corrupt, 'corrupt.mp4', 'corrupt');
    expect(video.body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    expect(video.body.errors[0].message).toMatch(/not a readable video/i);
    expectNoLeak(video.body.errors[0].message);
    const garbage = await addVideo(
      orgId,
      eventId,
      key,
      Buffer.from('this is not a video at all'),
      'notes.mp4',
      'garbage',
    );
    expect(garbage.body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    expectNoLeak(garbage.body.errors[0].message);

    const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#468' } })
      .jpeg()
      .toBuffer();
    const truncated = jpeg.subarray(0, Math.floor(jpeg.length / 3));
    const report = await importUpload(base, key, 'broken.jpg', truncated);
    expect(report.body.data.files[0].status).toBe('rejected');
    expectNoLeak(report.body.data.files[0].reason);
  });

  it('#11 expired clips are swept from storage: their URLs answer 404, the result says expired without URLs, force_recreate makes new ones', async () => {
    const videoFile = path.join(dir, 'camera-a.mp4');
    await buildSlideshow(
      [
        { image: null, seconds: 2 },
        { image: readFileSync(path.join(DEMO_PHOTOS, 'sample5.jpg')), seconds: 4 },
        { image: null, seconds: 2 },
      ],
      videoFile,
    );
    const added = await addVideo(orgId, eventId, key, readFileSync(videoFile), 'camera-a.mp4', 'camera-a');
    expect(added.body.errors).toBeUndefined();
    await waitFor('indexed', async () => {
      const [row] = await sql('select status, error from videos where id = $1', [added.body.data.addEventVideo.id]);
      if (row.status === 'failed') throw new Error(row.error);
      return row.status === 'indexed' ? true : undefined;
    });
    await sql('update events set clip_retention_hours = 1 where id = $1', [eventId]);
    const selfie = await faceCrop('sample5.jpg');
    const start = expectSuccess(await postForm(`${base}/video-clipping/search-by-selfie`, key, selfie));
    const poll = (status?: string) =>
      waitFor('clipping', async () => {
        const data = expectSuccess(await api(`${base}/video-clipping/${start.request_id}`, { key }));
        return data.status !== 'processing' && (!status || data.videos[0]?.download_status === status)
          ? data
          : undefined;
      });
    const done = await poll();
    expect(done.status).toBe('completed');
    const clip = done.videos[0];
    expect(clip.download_status).toBe('ready');
    expect((await fetch(clip.video_url)).status).toBe(200);

    await sql(`update clips set expires_at = now() - interval '1 second' where clip_request_request_id = $1`, [
      start.request_id,
    ]);
    // The sweep runs on its own (CLIP_RETENTION_SWEEP_SECONDS is short in the test platform).
    await waitFor(
      'swept',
      async () => {
        const [row] = await sql('select download_status from clips where id = $1', [clip.uuid]);
        return row.download_status === 'expired' ? true : undefined;
      },
      60_000,
    );
    expect((await fetch(clip.video_url)).status).toBe(404);
    const expired = expectSuccess(await api(`${base}/video-clipping/${start.request_id}`, { key }));
    expect(expired.videos[0]).toMatchObject({
      uuid: clip.uuid,
      download_status: 'expired',
      video_url: null,
      download_url: null,
    });

    expect(
      expectSuccess(
        await postForm(`${base}/video-clipping/search-by-selfie`, key, null, {
          request_id: start.request_id,
          force_recreate: 'true',
        }),
      ).status,
    ).toBe('processing');
    const recreated = await poll('ready');
    expect(recreated.videos[0].uuid).not.toBe(clip.uuid);
    expect((await fetch(recreated.videos[0].video_url)).status).toBe(200);
  }, 240_000);
});
