import { Logger } from '@em/core';
import { bufferToDescriptor } from '@em/core/media';
import {
  InMemoryEventsRepository,
  InMemoryObjectStore,
  InMemoryVideosRepository,
  writeTestVideo,
} from '@em/core/testing';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { VideoIndexer } from './index-video';
import { indexPart } from './video-parts';
import type { VideoPartThread } from './video-thread';

const logger = { info: () => undefined, warn: () => undefined } as unknown as Logger;
const dir = mkdtempSync(path.join(tmpdir(), 'index-video-test-'));
let video: Buffer;
beforeAll(() => {
  writeTestVideo(path.join(dir, 'source.mp4'), 3, '320x240');
  video = readFileSync(path.join(dir, 'source.mp4'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * One face in every frame, turned (refreshed every second it is analysed), on the test pattern's
 * scrolling gradient (it looks different in every frame: face-look); records the frame sizes it was given.
 */
class FakeFaces {
  sizes: string[] = [];
  described = 0;
  async detectFrameFaces(
    _rgb: Buffer,
    width: number,
    height: number,
    pick: (boxes: Array<{ x: number; y: number; width: number; height: number }>) => boolean[],
  ) {
    this.sizes.push(`${width}x${height}`);
    const box = { x: 0.4, y: 0.7, width: 0.2, height: 0.2 };
    const [describe] = pick([box]);
    if (describe) this.described++;
    return [
      {
        box,
        score: 0.8,
        descriptorVersion: 2 as const,
        signals: { yaw: 0.7, proportion: 1, eyeDistancePx: 40, score: 0.9, contrast: 50, sharpness: 20 },
        descriptor: describe
          ? Float32Array.from({ length: 128 }, (_, i) => (i === 0 ? this.sizes.length / 1000 : 0))
          : null,
      },
    ];
  }
}

async function setup(startThread?: () => Promise<VideoPartThread | null>, maxParts = 1, source = video) {
  const events = new InMemoryEventsRepository();
  events.add({ id: 7, orgId: 1, videoSampleFps: 2 });
  const videos = new InMemoryVideosRepository(events);
  const store = new InMemoryObjectStore();
  const row = videos.add({ eventId: 7, storageKey: 'videos/7/v.mp4' });
  await store.put(row.storageKey, source, 'video/mp4');
  const faces = new FakeFaces();
  const bumps: number[] = [];
  const announced: Array<{ status: string; progress: number; error: string | null }> = [];
  const indexer = new VideoIndexer(
    videos,
    store.asStore,
    faces,
    { bump: async (_kind, eventId) => void bumps.push(eventId) },
    logger,
    startThread,
    maxParts,
    async ({ status, progress, error }) => void announced.push({ status, progress, error }),
  );
  return { videos, store, row, faces, bumps, indexer, announced };
}

describe('VideoIndexer', () => {
  it("samples frames at the event's rate and stores each face with its time; the video is indexed with its duration", async () => {
    const s = await setup();
    expect(await s.indexer.index(s.row.id)).toBe('indexed');
    expect(s.videos.rows.get(s.row.id)).toMatchObject({
      status: 'indexed',
      indexProgress: 1,
      durationSeconds: 3,
      width: 320,
      height: 240,
      sampleFps: 2,
    });
    expect(s.videos.faces.map((f) => f.timeSeconds)).toEqual([0, 0.5, 1, 1.5, 2, 2.5]);
    // One track; its descriptor is described once a second and carried by the sightings between.
    // Key frames are 2 s apart: the first (1.5 s, call 1) sees a new face, so the frames before it
    // are analysed (calls 2-4) and it keeps the faces it showed; the last (2.5 s, at the end, call 5)
    // shows the same face, so 2 s is not analysed and carries the track's descriptor.
    expect(new Set(s.videos.faces.map((f) => f.track)).size).toBe(1);
    expect(s.videos.faces.map((f) => Math.round(bufferToDescriptor(f.embedding)[0] * 1000))).toEqual([
      2, 2, 4, 4, 4, 5,
    ]);
    expect(s.faces.described).toBe(3);
    expect(s.faces.sizes).toHaveLength(5);
    expect(s.faces.sizes[0]).toBe('320x240');
    expect(s.bumps).toEqual([7]);
    expect((await s.videos.facesAfter(7, '0', 10))[0].ref).toBe(`${s.row.id}@0`);
    // The page follows it: indexing from 0, then indexed at 1 (progress between is announced once a second).
    expect(s.announced[0]).toEqual({ status: 'indexing', progress: 0, error: null });
    expect(s.announced[s.announced.length - 1]).toEqual({ status: 'indexed', progress: 1, error: null });
  });

  it('is idempotent: an indexed video is skipped; a re-run after a crash replaces the faces of the earlier run', async () => {
    const s = await setup();
    await s.indexer.index(s.row.id);
    expect(await s.indexer.index(s.row.id)).toBe('skipped');
    s.videos.rows.get(s.row.id)!.status = 'indexing';
    await s.indexer.index(s.row.id);
    expect(s.videos.faces).toHaveLength(6);
  });

  it('a stored file that is not a readable video fails at once with the reason (no retries)', async () => {
    const s = await setup();
    await s.store.put(s.row.storageKey, Buffer.from('garbage'), 'video/mp4');
    await expect(s.indexer.index(s.row.id)).rejects.toMatchObject({ name: 'UnrecoverableError' });
    expect(s.videos.rows.get(s.row.id)).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('not a readable video'),
    });
    expect(s.bumps).toEqual([]);
    expect(s.announced.map((a) => a.status)).toEqual(['indexing', 'failed']);
    expect(s.announced[1].error).toMatch(/not a readable video/);
  });

  it('fail() never fails an indexed video', async () => {
    const s = await setup();
    await s.indexer.index(s.row.id);
    await s.indexer.fail(s.row.id, 'late');
    expect(s.videos.rows.get(s.row.id)!.status).toBe('indexed');
    expect(s.announced.map((a) => a.status)).not.toContain('failed');
  });

  it('indexes a long video in parts at once, the later ones on threads, with every sampled frame once and tracks numbered apart', async () => {
    writeTestVideo(path.join(dir, 'long.mp4'), 41, '160x120');
    const long = readFileSync(path.join(dir, 'long.mp4'));
    const helper = new FakeFaces();
    let started = 0;
    let closed = 0;
    const thread = {
      indexPart: (...args: Parameters<VideoPartThread['indexPart']>) => indexPart(helper, ...args),
      close: async () => void closed++,
    } as unknown as VideoPartThread;
    const s = await setup(async () => (started++, thread), 4, long);
    await s.indexer.index(s.row.id);
    expect(started).toBe(1); // 41 s: two parts of at least 20 s
    expect(closed).toBe(1);
    const times = s.videos.faces.map((f) => f.timeSeconds).sort((a, b) => a - b);
    expect(times).toEqual(Array.from({ length: 82 }, (_, i) => i / 2));
    const tracks = [...new Set(s.videos.faces.map((f) => f.track))].sort((a, b) => a - b);
    expect(tracks).toEqual([1, 1_000_001]);
    expect(s.videos.faces.filter((f) => f.track > 1_000_000).every((f) => f.timeSeconds >= 20.5)).toBe(true);
    expect(helper.sizes.length).toBeGreaterThan(0);
  });

  it('indexes in one part when no thread starts', async () => {
    writeTestVideo(path.join(dir, 'long.mp4'), 41, '160x120');
    const s = await setup(async () => null, 2, readFileSync(path.join(dir, 'long.mp4')));
    await s.indexer.index(s.row.id);
    expect(s.videos.faces).toHaveLength(82);
    expect(new Set(s.videos.faces.map((f) => f.track)).size).toBe(1);
  });
});
