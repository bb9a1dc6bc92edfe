import { Logger } from '../logger';
import { InMemoryPhotosRepository } from '../repositories/fakes/photos.fake';
import { InMemoryVideosRepository } from '../repositories/fakes/videos.fake';
import { BOX_DESCRIPTOR_VERSION, CHIP_DISTANCE_SHIFT, descriptorToBuffer } from './embedding';
import { FaceIndexCache, IDLE_EVICT_MS } from './face-index-cache';
import { FaceIndexRevisions } from './face-index-revisions';

const logger = { info: () => undefined } as unknown as Logger;
const vector = (x: number) => {
  const v = new Float32Array(128);
  v[0] = x;
  return v;
};

/** Revisions the test moves by hand. */
function revisions() {
  const state = { revision: '1' };
  return { state, revisions: { read: async () => state.revision } as unknown as FaceIndexRevisions };
}

describe('FaceIndexCache', () => {
  it('says whether an event may hold box-family faces (stored before version 4): yes until its index is loaded without any', async () => {
    const photos = new InMemoryPhotosRepository();
    photos.add({ id: 'new', eventId: 5 });
    photos.add({ id: 'old', eventId: 6 });
    photos.addFace('new', descriptorToBuffer(vector(0.1)));
    photos.addFace('old', descriptorToBuffer(vector(0.1)), BOX_DESCRIPTOR_VERSION);
    const cache = new FaceIndexCache('photos', photos, revisions().revisions, logger);
    expect(cache.mayHoldBoxFaces(5)).toBe(true);
    await cache.search(5, { chip: vector(0), box: null }, 0.5, 100);
    await cache.search(6, { chip: vector(0), box: null }, 0.5, 100);
    expect(cache.mayHoldBoxFaces(5)).toBe(false);
    expect(cache.mayHoldBoxFaces(6)).toBe(true);
  });

  it("loads an event's photo faces from its repository and finds the photos within the distance, nearest first, one hit per photo", async () => {
    const photos = new InMemoryPhotosRepository();
    photos.add({ id: 'near', eventId: 5 });
    photos.add({ id: 'far', eventId: 5 });
    photos.add({ id: 'elsewhere', eventId: 6 });
    photos.addFace('near', descriptorToBuffer(vector(0.1)));
    photos.addFace('near', descriptorToBuffer(vector(0.05)));
    photos.addFace('far', descriptorToBuffer(vector(0.9)));
    photos.addFace('elsewhere', descriptorToBuffer(vector(0)));
    const cache = new FaceIndexCache('photos', photos, revisions().revisions, logger);
    const hits = await cache.search(5, { chip: vector(0), box: null }, 0.5, 100);
    expect(hits.map((h) => h.ref)).toEqual(['near']);
    expect(hits[0].distance).toBeCloseTo(0.05 - CHIP_DISTANCE_SHIFT, 5); // version 4 faces: on the threshold's scale
    expect(cache.size(5)).toBe(3);
  });

  it('reads only the faces added since, when the revision moves', async () => {
    const photos = new InMemoryPhotosRepository();
    photos.add({ id: 'a', eventId: 5 });
    photos.add({ id: 'b', eventId: 5 });
    photos.addFace('a', descriptorToBuffer(vector(0.1)));
    const { state, revisions: revs } = revisions();
    const cache = new FaceIndexCache('photos', photos, revs, logger);
    expect((await cache.search(5, { chip: vector(0), box: null }, 0.5, 100)).map((h) => h.ref)).toEqual(['a']);
    photos.addFace('b', descriptorToBuffer(vector(0.2)));
    expect((await cache.search(5, { chip: vector(0), box: null }, 0.5, 100)).map((h) => h.ref)).toEqual(['a']);
    state.revision = '2';
    expect((await cache.search(5, { chip: vector(0), box: null }, 0.5, 100)).map((h) => h.ref)).toEqual(['a', 'b']);
    expect(cache.size(5)).toBe(2);
  });

  it('indexes video frames as <video id>@<seconds>', async () => {
    const videos = new InMemoryVideosRepository();
    const video = videos.add({ eventId: 5 });
    await videos.addFaces(video.id, 5, [
      { timeSeconds: 12.5, embedding: descriptorToBuffer(vector(0)), score: 1, descriptorVersion: 4, track: 0 },
    ]);
    const cache = new FaceIndexCache('videos', videos, revisions().revisions, logger);
    expect((await cache.search(5, { chip: vector(0), box: null }, 0.5, 100)).map((h) => h.ref)).toEqual([
      `${video.id}@12.5`,
    ]);
  });

  it('never makes a search wait for a refresh that only time asked for: the staleness check and the full rebuild run in the background', async () => {
    const photos = new InMemoryPhotosRepository();
    photos.add({ id: 'a', eventId: 5 });
    photos.add({ id: 'b', eventId: 5 });
    photos.addFace('a', descriptorToBuffer(vector(0.1)));
    let gate: Promise<void> = Promise.resolve();
    let reads = 0;
    const source = {
      facesAfter: async (...args: Parameters<typeof photos.facesAfter>) => (
        reads++,
        await gate,
        photos.facesAfter(...args)
      ),
    };
    const cache = new FaceIndexCache('photos', source, revisions().revisions, logger);
    const now = jest.spyOn(Date, 'now');
    let clock = 1_000_000;
    now.mockImplementation(() => clock);
    try {
      const refs = async () => (await cache.search(5, { chip: vector(0), box: null }, 0.5, 100)).map((h) => h.ref);
      expect(await refs()).toEqual(['a']);
      photos.addFace('b', descriptorToBuffer(vector(0.2)));
      let open!: () => void;
      for (const step of [61_000, 15 * 60_000]) {
        gate = new Promise((r) => (open = r));
        clock += step;
        const before = reads;
        const answer = await Promise.race([
          refs(),
          new Promise((r) => setTimeout(() => r('waited for the refresh'), 500)),
        ]);
        expect(answer).toEqual(step === 61_000 ? ['a'] : ['a', 'b']);
        expect(reads).toBe(before + 1);
        open();
        await new Promise((r) => setTimeout(r, 10));
        expect(await refs()).toEqual(['a', 'b']);
      }
      expect(cache.size(5)).toBe(2);
    } finally {
      now.mockRestore();
    }
  });

  it('an incremental load re-reads the overlap for late commits but leaves out the faces it holds', async () => {
    const photos = new InMemoryPhotosRepository();
    for (const id of ['a', 'b', 'c']) photos.add({ id, eventId: 5 });
    photos.addFace('a', descriptorToBuffer(vector(0.1)));
    photos.addFace('b', descriptorToBuffer(vector(0.2)));
    const calls: Array<{ afterId: string; skipIds: readonly string[]; returned: number }> = [];
    const source = {
      facesAfter: async (eventId: number, afterId: string, limit: number, skipIds: readonly string[] = []) => {
        const rows = await photos.facesAfter(eventId, afterId, limit, skipIds);
        calls.push({ afterId, skipIds, returned: rows.length });
        return rows;
      },
    };
    const { state, revisions: revs } = revisions();
    const cache = new FaceIndexCache('photos', source, revs, logger);
    await cache.search(5, { chip: vector(0), box: null }, 0.5, 100);
    photos.addFace('c', descriptorToBuffer(vector(0.3)));
    state.revision = '2';
    expect((await cache.search(5, { chip: vector(0), box: null }, 0.5, 100)).map((h) => h.ref)).toEqual([
      'a',
      'b',
      'c',
    ]);
    expect(calls[1]).toEqual({ afterId: '0', skipIds: ['1', '2'], returned: 1 });
  });

  it('keeps an index through a lull of hours (the first search after 31 min idle answers from memory), drops it after IDLE_EVICT_MS', async () => {
    const photos = new InMemoryPhotosRepository();
    photos.add({ id: 'a', eventId: 5 });
    photos.addFace('a', descriptorToBuffer(vector(0.1)));
    let gate: Promise<void> = Promise.resolve();
    const source = {
      facesAfter: async (...args: Parameters<typeof photos.facesAfter>) => (await gate, photos.facesAfter(...args)),
    };
    const cache = new FaceIndexCache('photos', source, revisions().revisions, logger);
    const now = jest.spyOn(Date, 'now');
    let clock = 1_000_000;
    now.mockImplementation(() => clock);
    let open!: () => void;
    try {
      await cache.search(5, { chip: vector(0), box: null }, 0.5, 100);
      gate = new Promise((r) => (open = r));
      clock += 31 * 60_000;
      const answer = await Promise.race([
        cache.search(5, { chip: vector(0), box: null }, 0.5, 100).then((h) => h.map((x) => x.ref)),
        new Promise((r) => setTimeout(() => r('waited for a load'), 500)),
      ]);
      expect(answer).toEqual(['a']);
      open();
      await new Promise((r) => setTimeout(r, 10)); // the background rebuild the search started
      clock += IDLE_EVICT_MS + 1;
      await cache.search(6, { chip: vector(0), box: null }, 0.5, 100);
      expect(cache.size(5)).toBe(0);
    } finally {
      open?.();
      now.mockRestore();
    }
  });

  it('holds at most its face budget: past it, the index searched longest ago is dropped, never the one searched', async () => {
    const photos = new InMemoryPhotosRepository();
    for (const [id, eventId] of [
      ['a', 1],
      ['b', 1],
      ['c', 2],
      ['d', 2],
      ['e', 3],
      ['f', 3],
    ] as const) {
      photos.add({ id, eventId });
      photos.addFace(id, descriptorToBuffer(vector(0.1)));
    }
    const cache = new FaceIndexCache('photos', photos, revisions().revisions, logger, 4);
    const now = jest.spyOn(Date, 'now');
    let clock = 1_000_000;
    now.mockImplementation(() => clock);
    try {
      for (const eventId of [1, 2, 1]) {
        clock += 1000;
        await cache.search(eventId, { chip: vector(0), box: null }, 0.5, 100);
      }
      clock += 1000;
      await cache.search(3, { chip: vector(0), box: null }, 0.5, 100);
      clock += 1000;
      await cache.search(3, { chip: vector(0), box: null }, 0.5, 100);
      expect([cache.size(1), cache.size(2), cache.size(3)]).toEqual([2, 0, 2]);
    } finally {
      now.mockRestore();
    }
  });
});
