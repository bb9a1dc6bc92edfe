import { Logger } from '@em/core';
import {
  InMemoryClipRequestsRepository,
  InMemoryEventsRepository,
  InMemoryObjectStore,
  InMemoryVideosRepository,
  RecordingPublisher,
  writeTestVideo,
} from '@em/core/testing';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ClipCutter } from './cut-clips';

const REQUEST_ID = '0b7e1c52-4a36-4d0e-9b59-3f1f4b8a2d11';
const logger = { info: () => undefined, warn: () => undefined } as unknown as Logger;
const dir = mkdtempSync(path.join(tmpdir(), 'cut-clips-test-'));
let video: Buffer;
beforeAll(() => {
  writeTestVideo(path.join(dir, 'source.mp4'), 4);
  video = readFileSync(path.join(dir, 'source.mp4'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function setup(settings: { clipMinSegmentSeconds?: number; clipRetentionHours?: number | null } = {}) {
  const events = new InMemoryEventsRepository();
  events.add({
    id: 7,
    orgId: 1,
    clipMaxGapSeconds: 3,
    clipMinSegmentSeconds: 1,
    clipPaddingStartSeconds: 0,
    clipPaddingEndSeconds: 0,
    clipMaxDurationSeconds: 30,
    clipRetentionHours: null,
    ...settings,
  });
  const videos = new InMemoryVideosRepository(events);
  const requests = new InMemoryClipRequestsRepository(events, videos);
  const store = new InMemoryObjectStore();
  const redis = new RecordingPublisher();
  const source = videos.add({
    eventId: 7,
    sourceKey: 'finish',
    storageKey: 'videos/7/v.mp4',
    status: 'indexed',
    durationSeconds: 4,
    sampleFps: 2,
  });
  await store.put(source.storageKey, video, 'video/mp4');
  await requests.start({
    eventId: 7,
    requestId: REQUEST_ID,
    orgId: 1,
    status: 'processing',
    embedding: null,
    matches: [{ videoId: source.id, times: [1, 1.5, 2, 2.5] }],
    generation: 1,
    finishedAt: null,
  });
  const cutter = new ClipCutter(requests, videos, store.asStore, redis.asRedis, logger);
  const request = () => requests.find({ eventId: 7, requestId: REQUEST_ID });
  return { videos, requests, store, redis, source, cutter, request };
}

describe('ClipCutter', () => {
  it('cuts the clips of the matched windows into the public store and completes, announcing it', async () => {
    const s = await setup({ clipRetentionHours: 24 });
    expect(await s.cutter.run(7, REQUEST_ID, 1)).toBe('completed');
    const clips = await s.requests.clipsOf(7, REQUEST_ID);
    expect(clips).toHaveLength(1);
    expect(clips[0]).toMatchObject({ sourceKey: 'finish', startSeconds: 1, endSeconds: 3 });
    expect(clips[0].storageKey).toMatch(new RegExp(`^public/7/clips/${REQUEST_ID}/`));
    expect(s.store.objects.get(clips[0].storageKey)!.body.length).toBeGreaterThan(0);
    expect(s.requests.clips[0].expiresAt!.getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    expect(await s.request()).toMatchObject({ status: 'completed', clipErrors: [] });
    expect(s.redis.statuses()).toEqual(['completed']);
  });

  it('ends no_matches when the matched videos were deleted before the clip job ran', async () => {
    const s = await setup();
    s.videos.rows.clear();
    expect(await s.cutter.run(7, REQUEST_ID, 1)).toBe('no_matches');
    expect(await s.request()).toMatchObject({ status: 'no_matches', clipErrors: [] });
  });

  it('ends no_segments, with the explanation, when the videos are there but the sightings are too sparse', async () => {
    const s = await setup({ clipMinSegmentSeconds: 5 });
    expect(await s.cutter.run(7, REQUEST_ID, 1)).toBe('no_segments');
    expect((await s.request())!.clipErrors).toEqual([
      { videoKey: null, error: expect.stringContaining('4 sampled frame'), statusCode: null },
    ]);
  });

  it('reports a source missing from storage in clip_errors and ends clip_failed when no clip could be made', async () => {
    const s = await setup();
    await s.store.delete(s.source.storageKey);
    expect(await s.cutter.run(7, REQUEST_ID, 1)).toBe('clip_failed');
    expect((await s.request())!.clipErrors).toEqual([expect.objectContaining({ videoKey: 'finish', statusCode: 404 })]);
  });

  it('does nothing for a run of an older generation or a request no longer processing (idempotent under retries)', async () => {
    const s = await setup();
    expect(await s.cutter.run(7, REQUEST_ID, 2)).toBe('skipped');
    await s.cutter.run(7, REQUEST_ID, 1);
    expect(await s.cutter.run(7, REQUEST_ID, 1)).toBe('skipped');
    expect(s.requests.clips).toHaveLength(1);
  });

  it('a re-run of a new generation removes the clips of the earlier run first, objects included', async () => {
    const s = await setup();
    await s.cutter.run(7, REQUEST_ID, 1);
    const [old] = s.requests.clips;
    const row = (await s.request())!;
    Object.assign(row, { status: 'processing', generation: 2 });
    await s.cutter.run(7, REQUEST_ID, 2);
    expect(s.requests.clips.map((c) => c.id)).not.toContain(old.id);
    expect(s.store.objects.has(old.storageKey)).toBe(false);
  });

  it('markFailed ends only the current processing run (jobs of older payloads carry no event id)', async () => {
    const s = await setup();
    await s.cutter.markFailed(7, REQUEST_ID, 2, 'stale');
    expect((await s.request())!.status).toBe('processing');
    await s.cutter.markFailed(undefined, REQUEST_ID, 1, 'ffmpeg crashed');
    expect(await s.request()).toMatchObject({ status: 'failed', error: 'ffmpeg crashed' });
    expect(s.redis.published[0].message).toMatchObject({ eventId: 7, status: 'failed', error: 'ffmpeg crashed' });
  });
});
