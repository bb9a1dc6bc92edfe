import { connectRedis } from '@em/core';
import { JOBS } from '@em/core/jobs';
import { ffmpegPath, probeVideo } from '@em/core/media';
import { buildSlideshow } from '@em/platform';
import { Queue } from 'bullmq';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import {
  api,
  cfg,
  closeDb,
  expectError,
  expectSuccess,
  fixtures,
  info,
  postForm,
  sql,
  store,
} from './support/platform';
import { DEMO_PHOTOS, faceCrop } from './support/demo-faces';

/** This file's videos and clips, removed after its tests. */
const scratch = mkdtempSync(path.join(tmpdir(), 'em-clipping-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Person A's photo is on screen from 5 s to 9 s, person B's from 14 s to 17 s; 20 s in all. */
const A_SECONDS = [5, 9];
const B_SECONDS = [14, 17];

async function addVideo(base: string, key: string, file: string, sourceKey: string) {
  const form = new FormData();
  const [orgId, eventId] = base
    .split('/')
    .filter(Boolean)
    .filter((_, i) => i !== 1)
    .map(Number);
  form.append(
    'operations',
    JSON.stringify({
      query:
        'mutation($o: Int!, $e: Int!, $f: Upload, $k: String) { addEventVideo(orgId: $o, eventId: $e, file: $f, sourceKey: $k) { id status } }',
      variables: { o: orgId, e: eventId, f: null, k: sourceKey },
    }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.f'] }));
  form.append('0', new Blob([readFileSync(file)], { type: 'video/mp4' }), path.basename(file));
  const res = await fetch(info.gatewayUrl, {
    method: 'POST',
    headers: { 'x-api-key': key, 'apollo-require-preflight': 'true' },
    body: form,
  });
  return await res.json();
}

async function waitIndexed(videoId: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const [row] = await sql('select status, error from videos where id = $1', [videoId]);
    if (row.status === 'indexed') return;
    if (row.status === 'failed') throw new Error(`indexing failed: ${row.error}`);
    if (Date.now() > deadline) throw new Error('video not indexed in time');
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function poll(base: string, key: string, requestId: string): Promise<any> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const data = expectSuccess(await api(`${base}/video-clipping/${requestId}`, { key }));
    if (data.status !== 'processing') return data;
    if (Date.now() > deadline) throw new Error('clipping still processing');
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('video clipping by selfie', () => {
  let orgId: number;
  let key: string;
  let eventId: number;
  let base: string;
  let videoId: string;
  let videoFile: string;
  let selfieA: Buffer;
  let selfieNobody: Buffer;

  beforeAll(async () => {
    ({ orgId, key } = await fixtures.organisation());
    eventId = await fixtures.event(orgId, { videoSearch: true, videoSelfieClipping: true });
    await sql('update events set clip_padding_start_seconds = 0, clip_padding_end_seconds = 0 where id = $1', [
      eventId,
    ]);
    base = `/${orgId}/event/${eventId}`;
    const dir = mkdtempSync(path.join(scratch, 'clip-test-'));
    videoFile = path.join(dir, 'camera-a.mp4');
    await buildSlideshow(
      [
        { image: null, seconds: A_SECONDS[0] },
        { image: readFileSync(path.join(DEMO_PHOTOS, 'sample5.jpg')), seconds: A_SECONDS[1] - A_SECONDS[0] },
        { image: null, seconds: B_SECONDS[0] - A_SECONDS[1] },
        { image: readFileSync(path.join(DEMO_PHOTOS, 'sample6.jpg')), seconds: B_SECONDS[1] - B_SECONDS[0] },
        { image: null, seconds: 3 },
      ],
      videoFile,
    );
    const added = await addVideo(base, key, videoFile, 'camera-a');
    expect(added.errors).toBeUndefined();
    videoId = added.data.addEventVideo.id;
    await waitIndexed(videoId);
    selfieA = await faceCrop('sample5.jpg');
    selfieNobody = await faceCrop('sample3.jpg');
  }, 180_000);
  afterAll(closeDb);

  it('the video was indexed: duration, frames sampled at 2 fps, faces only while people are on screen', async () => {
    const [video] = await sql('select duration_seconds, sample_fps, index_progress from videos where id = $1', [
      videoId,
    ]);
    expect(video.duration_seconds).toBeCloseTo(20, 0);
    expect(video.sample_fps).toBe(2);
    expect(video.index_progress).toBe(1);
    const times = (
      await sql('select distinct time_seconds as t from video_faces where video_id = $1 order by 1', [videoId])
    ).map((r: any) => r.t);
    expect(times.length).toBeGreaterThanOrEqual(10);
    for (const t of times)
      expect(
        (t >= A_SECONDS[0] - 0.5 && t < A_SECONDS[1] + 0.5) || (t >= B_SECONDS[0] - 0.5 && t < B_SECONDS[1] + 0.5),
      ).toBe(true);
  });

  it("faces are followed across frames: a few tracks of many sightings, mirror-averaged descriptors of dlib's chip (version 4, or 5 for faces only the second detector found)", async () => {
    const [row] = await sql(
      `select count(*)::int as sightings, count(distinct track)::int as tracks, count(*) filter (where track is null)::int as untracked,
              min(descriptor_version)::int as version from video_faces where video_id = $1`,
      [videoId],
    );
    expect(row.untracked).toBe(0);
    expect([4, 5]).toContain(row.version);
    expect(row.tracks).toBeGreaterThanOrEqual(2); // A and B are on screen at different times
    expect(row.sightings).toBeGreaterThanOrEqual(row.tracks * 3);
  });

  it('a selfie of A: processing, then completed with a playable clip covering A’s seconds and none of B’s (polling and subscription agree)', async () => {
    const start = expectSuccess(await postForm(`${base}/video-clipping/search-by-selfie`, key, selfieA));
    expect(start.status).toBe('processing');
    expect(start.request_id).toMatch(/^[0-9a-f-]{36}$/);

    const seen: string[] = [];
    const client = createClient({
      url: info.gatewayUrl.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': key },
    });
    const subscription = (async () => {
      for await (const message of client.iterate({
        query: `subscription { clipStatus(orgId: ${orgId}, eventId: ${eventId}, requestId: "${start.request_id}") { status } }`,
      })) {
        seen.push((message.data as any).clipStatus.status);
      }
    })();

    const result = await poll(base, key, start.request_id);
    await subscription;
    await client.dispose();
    expect(result.status).toBe('completed');
    expect(seen[seen.length - 1]).toBe('completed');
    expect(seen.every((s) => s === 'processing' || s === 'completed')).toBe(true);
    expect(result.error).toBeNull();
    expect(result.clip_errors).toEqual([]);
    expect(result.videos).toHaveLength(1);
    const clip = result.videos[0];
    expect(clip).toMatchObject({ source_video_key: 'camera-a', download_status: 'ready' });
    expect(clip.uuid).toMatch(/^[0-9a-f-]{36}$/);
    const seconds = (hms: string) => hms.split(':').reduce((s, p) => s * 60 + Number(p), 0);
    expect(Math.abs(seconds(clip.start_time) - A_SECONDS[0])).toBeLessThanOrEqual(1);
    expect(Math.abs(seconds(clip.end_time) - A_SECONDS[1])).toBeLessThanOrEqual(1);
    expect(seconds(clip.end_time)).toBeLessThanOrEqual(B_SECONDS[0]);

    const mp4 = Buffer.from(await (await fetch(clip.video_url)).arrayBuffer());
    const file = path.join(mkdtempSync(path.join(scratch, 'clip-')), 'clip.mp4');
    writeFileSync(file, mp4);
    const probe = await probeVideo(file);
    expect(probe.durationSeconds).toBeGreaterThan(3);
    expect(probe.durationSeconds).toBeLessThan(6);
    const download = await fetch(clip.download_url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toContain('attachment');

    // Reading never changes the result.
    expect(expectSuccess(await api(`${base}/video-clipping/${start.request_id}`, { key }))).toEqual(
      expect.objectContaining({ status: 'completed', videos: [expect.objectContaining({ uuid: clip.uuid })] }),
    );

    // force_recreate (query parameter or form field) cuts the clip again.
    const again = expectSuccess(
      await postForm(`${base}/video-clipping/search-by-selfie?force_recreate=true`, key, null, {
        request_id: start.request_id,
      }),
    );
    expect(again).toEqual({ status: 'processing', request_id: start.request_id });
    const recreated = await poll(base, key, start.request_id);
    expect(recreated.status).toBe('completed');
    expect(recreated.videos[0].uuid).not.toBe(clip.uuid);
    expect((await fetch(clip.video_url)).status).not.toBe(200);

    // Clips past the event's retention read as expired.
    await sql(`update clips set expires_at = now() - interval '1 hour' where clip_request_request_id = $1`, [
      start.request_id,
    ]);
    expect(
      expectSuccess(await api(`${base}/video-clipping/${start.request_id}`, { key })).videos[0].download_status,
    ).toBe('expired');
  }, 180_000);

  it('a request_id alone reuses the face search of that id; without one it is a 400', async () => {
    await sql('update events set selfie_search = true where id = $1', [eventId]);
    const search = expectSuccess(await postForm(`${base}/faces`, key, selfieA));
    const start = expectSuccess(
      await postForm(`${base}/video-clipping/search-by-selfie`, key, null, { request_id: search.request_id }),
    );
    expect(start).toEqual({ status: 'processing', request_id: search.request_id });
    expect((await poll(base, key, search.request_id)).status).toBe('completed');
    expectError(
      await postForm(`${base}/video-clipping/search-by-selfie`, key, null, { request_id: randomUUID() }),
      400,
    );
  }, 120_000);

  it('no_matches at once when the selfie matches no frame', async () => {
    const start = expectSuccess(await postForm(`${base}/video-clipping/search-by-selfie`, key, selfieNobody));
    expect(start.status).toBe('no_matches');
    const read = expectSuccess(await api(`${base}/video-clipping/${start.request_id}`, { key }));
    expect(read).toEqual({
      request_id: start.request_id,
      status: 'no_matches',
      videos: [],
      error: null,
      clip_errors: [],
    });
  });

  it('no_segments when the sightings are shorter than the event minimum, with an explanation', async () => {
    await sql('update events set clip_min_segment_seconds = 10 where id = $1', [eventId]);
    try {
      const start = expectSuccess(await postForm(`${base}/video-clipping/search-by-selfie`, key, selfieA));
      const result = await poll(base, key, start.request_id);
      expect(result.status).toBe('no_segments');
      expect(result.videos).toEqual([]);
      expect(result.clip_errors).toEqual([
        { video_key: null, error: expect.stringContaining('10 s'), status_code: null },
      ]);
    } finally {
      await sql('update events set clip_min_segment_seconds = 1 where id = $1', [eventId]);
    }
  }, 120_000);

  it('failed when the job cannot run (invalid clip settings), with the error', async () => {
    await sql('update events set clip_max_duration_seconds = 0 where id = $1', [eventId]);
    try {
      const start = expectSuccess(await postForm(`${base}/video-clipping/search-by-selfie`, key, selfieA));
      const result = await poll(base, key, start.request_id);
      expect(result.status).toBe('failed');
      expect(result.error).toMatch(/Invalid clip settings/);
    } finally {
      await sql('update events set clip_max_duration_seconds = 30 where id = $1', [eventId]);
    }
  }, 120_000);

  it('clip_failed when the source cannot be cut, with per-source detail', async () => {
    const otherEvent = await fixtures.event(orgId, { videoSearch: true, videoSelfieClipping: true });
    const other = `/${orgId}/event/${otherEvent}`;
    const added = await addVideo(other, key, videoFile, 'camera-b');
    await waitIndexed(added.data.addEventVideo.id);
    const [video] = await sql('select storage_key from videos where id = $1', [added.data.addEventVideo.id]);
    await store.delete(video.storage_key);
    const start = expectSuccess(await postForm(`${other}/video-clipping/search-by-selfie`, key, selfieA));
    const result = await poll(other, key, start.request_id);
    expect(result.status).toBe('clip_failed');
    expect(result.clip_errors).toEqual([{ video_key: 'camera-b', error: expect.any(String), status_code: 404 }]);
  }, 180_000);

  it('no_matches when the matched videos are deleted between the start and the clip job', async () => {
    const otherEvent = await fixtures.event(orgId, { videoSearch: true, videoSelfieClipping: true });
    const other = `/${orgId}/event/${otherEvent}`;
    const added = await addVideo(other, key, videoFile, 'camera-c');
    const vanishing = added.data.addEventVideo.id;
    await waitIndexed(vanishing);
    const redis = connectRedis(cfg.REDIS_URL);
    const clipJobs = new Queue(JOBS.clips.queue, { connection: redis });
    let requestId: string;
    await clipJobs.pause();
    try {
      const start = expectSuccess(await postForm(`${other}/video-clipping/search-by-selfie`, key, selfieA));
      expect(start.status).toBe('processing');
      requestId = start.request_id;
      const [video] = await sql('select storage_key from videos where id = $1', [vanishing]);
      await sql('delete from videos where id = $1', [vanishing]);
      await store.delete(video.storage_key);
    } finally {
      await clipJobs.resume();
      await clipJobs.close();
      redis.disconnect();
    }
    const result = await poll(other, key, requestId);
    expect(result).toEqual({ request_id: requestId, status: 'no_matches', videos: [], error: null, clip_errors: [] });
  }, 180_000);

  it("one visitor's many clipping requests do not hold back another visitor's first: each caller's next job waits behind every other caller's first", async () => {
    const browserKey = await fixtures.apiKey(orgId, { readOnly: true });
    const start = async (address: string) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(selfieA)], { type: 'image/jpeg' }), 'selfie.jpg');
      const started = expectSuccess(
        await api(`${base}/video-clipping/search-by-selfie`, {
          key: browserKey,
          method: 'POST',
          body: form,
          headers: { 'x-forwarded-for': address },
        }),
      );
      expect(started.status).toBe('processing');
      return started.request_id as string;
    };
    const redis = connectRedis(cfg.REDIS_URL);
    const clipJobs = new Queue(JOBS.clips.queue, { connection: redis });
    const flood: string[] = [];
    let other: string;
    // Held while the requests arrive, so that the order the worker takes them in is the queue's alone.
    await clipJobs.pause();
    try {
      for (let i = 0; i < 4; i++) flood.push(await start('203.0.113.77'));
      other = await start('198.51.100.78');
    } finally {
      await clipJobs.resume();
      await clipJobs.close();
      redis.disconnect();
    }
    for (const requestId of [...flood, other])
      expect((await poll(base, browserKey, requestId)).status).toBe('completed');
    const finished = async (requestId: string) =>
      (
        await sql('select finished_at from clip_requests where event_id = $1 and request_id = $2', [eventId, requestId])
      )[0].finished_at as Date;
    // The flooding visitor's first is taken first (it came first); the other visitor's only one before its second.
    expect((await finished(other)).getTime()).toBeLessThan((await finished(flood[1])).getTime());
    expect((await finished(flood[0])).getTime()).toBeLessThan((await finished(other)).getTime());
  }, 300_000);

  it('a phone video filmed upright (landscape pixels and a rotation) is indexed upright: the selfie finds its moment and the clip stays upright', async () => {
    const otherEvent = await fixtures.event(orgId, { videoSearch: true, videoSelfieClipping: true });
    await sql('update events set clip_padding_start_seconds = 0, clip_padding_end_seconds = 0 where id = $1', [
      otherEvent,
    ]);
    const other = `/${orgId}/event/${otherEvent}`;
    const dir = mkdtempSync(path.join(scratch, 'phone-video-'));
    const upright = path.join(dir, 'upright.mp4');
    const turned = path.join(dir, 'turned.mp4');
    const phone = path.join(dir, 'phone.mp4');
    await buildSlideshow(
      [
        { image: null, seconds: A_SECONDS[0] },
        { image: readFileSync(path.join(DEMO_PHOTOS, 'sample5.jpg')), seconds: A_SECONDS[1] - A_SECONDS[0] },
        { image: null, seconds: 2 },
      ],
      upright,
      { width: 720, height: 1280 },
    );
    // As a phone stores it: the pixels turned a quarter clockwise, and a rotation that turns them back.
    execFileSync(ffmpegPath(), [
      '-v',
      'error',
      '-y',
      '-i',
      upright,
      '-vf',
      'transpose=1',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      turned,
    ]);
    execFileSync(ffmpegPath(), [
      '-v',
      'error',
      '-y',
      '-i',
      turned,
      '-c',
      'copy',
      '-metadata:s:v:0',
      'rotate=90',
      phone,
    ]);
    const added = await addVideo(other, key, phone, 'phone');
    expect(added.errors).toBeUndefined();
    await waitIndexed(added.data.addEventVideo.id);
    const [video] = await sql('select width, height from videos where id = $1', [added.data.addEventVideo.id]);
    expect(video).toEqual({ width: 720, height: 1280 });
    const start = expectSuccess(await postForm(`${other}/video-clipping/search-by-selfie`, key, selfieA));
    expect(start.status).toBe('processing');
    const result = await poll(other, key, start.request_id);
    expect(result.status).toBe('completed');
    expect(result.videos).toHaveLength(1);
    const seconds = (hms: string) => hms.split(':').reduce((s, p) => s * 60 + Number(p), 0);
    expect(Math.abs(seconds(result.videos[0].start_time) - A_SECONDS[0])).toBeLessThanOrEqual(1);
    const clipFile = path.join(dir, 'clip.mp4');
    writeFileSync(clipFile, Buffer.from(await (await fetch(result.videos[0].video_url)).arrayBuffer()));
    expect(await probeVideo(clipFile)).toMatchObject({ width: 720, height: 1280 });
  }, 180_000);

  it('rules of the start call: 400s, 403 without both video flags, 404 for an unknown request_id', async () => {
    expectError(await postForm(`${base}/video-clipping/search-by-selfie`, key, null), 400);
    expectError(await postForm(`${base}/video-clipping/search-by-selfie`, key, selfieA, { request_id: 'nope' }), 400);
    expectError(await postForm(`${base}/video-clipping/search-by-selfie`, key, Buffer.from('not an image')), 400);
    expectError(await postForm(`${base}/video-clipping/search-by-selfie?force_recreate=maybe`, key, selfieA), 400);
    expectError(await api(`${base}/video-clipping/${randomUUID()}`, { key }), 404);
    for (const flags of [
      { videoSearch: false, videoSelfieClipping: true },
      { videoSearch: true, videoSelfieClipping: false },
    ]) {
      const gated = await fixtures.event(orgId, flags);
      expectError(await postForm(`/${orgId}/event/${gated}/video-clipping/search-by-selfie`, key, selfieA), 403);
      expectError(await api(`/${orgId}/event/${gated}/video-clipping/${randomUUID()}`, { key }), 403);
    }
    const stranger = await fixtures.organisation();
    expectError(await api(`${base}/video-clipping/${randomUUID()}`, { key: stranger.key }), 403);
  });

  it('a file that is not a video is refused when added', async () => {
    const file = path.join(mkdtempSync(path.join(scratch, 'bad-video-')), 'broken.mp4');
    writeFileSync(file, Buffer.from('this is not a video at all'));
    const res = await addVideo(base, key, file, 'broken');
    expect(res.errors?.[0].extensions.code).toBe('BAD_REQUEST');
  });
});
