import { ContentVersions, Logger } from '@em/core';
import { bufferToDescriptor } from '@em/core/media';
import {
  InMemoryEventsRepository,
  InMemoryObjectStore,
  InMemoryPhotosRepository,
  InMemoryStartListRepository,
} from '@em/core/testing';
import sharp from 'sharp';
import { OCR_MAX_SIDE } from '../bibs/bib-reader';
import { Registry } from 'prom-client';
import { PhotoProcessor } from './process-photo';
import { PHOTO_STEPS, photoStepHistogram } from './photo-steps';

/** The encoded images sharp turned into pixels (any pipeline on an encoded buffer that ends in toBuffer). */
const mockDecoded: Buffer[] = [];
jest.mock('sharp', () => {
  const actual = jest.requireActual('sharp');
  const counting = (input?: unknown, options?: { raw?: unknown }) => {
    const image = actual(input, options);
    if (Buffer.isBuffer(input) && !options?.raw) {
      const toBuffer = image.toBuffer.bind(image);
      image.toBuffer = (...args: unknown[]) => {
        mockDecoded.push(input);
        return toBuffer(...args);
      };
    }
    return image;
  };
  return Object.assign(counting, actual);
});

interface Pixels {
  data: Buffer;
  width: number;
  height: number;
}

const logger = { info: () => undefined, warn: () => undefined, debug: () => undefined } as unknown as Logger;
/** A face at x; the one at 0.5 is turned (its eyes close together: proportion 0.75). */
const face = (x: number) => ({
  box: { x, y: 0.1, width: 0.2, height: 0.2 },
  score: 0.9,
  descriptorVersion: 2 as const,
  signals: { yaw: 0.05, proportion: x === 0.5 ? 0.75 : 1, eyeDistancePx: 40, score: 0.9, contrast: 50, sharpness: 20 },
  descriptor: new Float32Array(128).fill(x),
});

class FakeFaces {
  calls = 0;
  faces = [face(0.1), face(0.5)];
  fail = false;
  /** The people each call was given (to look at their heads). */
  people: unknown[][] = [];
  /** The image each call was given. */
  images: Buffer[] = [];
  async detectAll(image: Buffer, _options: unknown, people: unknown[] = []) {
    this.calls++;
    this.people.push(people);
    this.images.push(image);
    if (this.fail) throw new Error('model crashed');
    return this.faces;
  }
}

const RUNNER = { x: 0.3, y: 0.2, width: 0.2, height: 0.7, score: 0.9 };

class FakeBibs {
  fail = false;
  pixels: Pixels[] = [];
  read: { bib: string; weakEnd: 'first' | 'last' | null; unsure?: boolean } = { bib: '1234', weakEnd: null };
  async readPixels(pixels: Pixels) {
    this.pixels.push(pixels);
    if (this.fail) throw new Error('ocr crashed');
    const { bib, weakEnd, unsure } = this.read;
    const confidence = unsure ? 0.7 : 0.98;
    const box = { x: 0.4, y: 0.4, width: 0.05, height: 0.02 };
    return {
      bibs: new Map(unsure ? [] : [[bib, confidence]]),
      reads: [{ bib, confidence, box, partial: false, weakEnd, ...(unsure ? { unsure } : {}) }],
      people: [RUNNER],
    };
  }
}

class FakeRevisions {
  bumps: Array<[string, number]> = [];
  async bump(kind: string, eventId: number) {
    this.bumps.push([kind, eventId]);
  }
}

async function setup(live = false, registry?: Registry) {
  const events = new InMemoryEventsRepository();
  events.add({ id: 5, orgId: 1, watermarkText: 'Demo', wentLiveAt: live ? new Date(0) : null });
  const photos = new InMemoryPhotosRepository(events);
  const store = new InMemoryObjectStore();
  const photo = photos.add({
    eventId: 5,
    status: 'queued',
    originalKey: 'originals/5/p.jpg',
    largeKey: null,
    thumbnailKey: null,
  });
  await store.put(
    photo.originalKey,
    await sharp({ create: { width: 640, height: 480, channels: 3, background: '#3a6' } })
      .jpeg()
      .toBuffer(),
    'image/jpeg',
  );
  const faces = new FakeFaces();
  const bibs = new FakeBibs();
  const revisions = new FakeRevisions();
  const startLists = new InMemoryStartListRepository();
  const versions = new ContentVersions(events, null);
  const processor = new PhotoProcessor(
    photos,
    events,
    store.asStore,
    faces,
    bibs,
    revisions,
    logger,
    startLists,
    versions,
    registry ? photoStepHistogram(registry) : undefined,
  );
  return { events, photos, store, photo, faces, bibs, revisions, processor, startLists };
}

describe('PhotoProcessor', () => {
  it('renders the previews, records BIBs and faces and marks the photo processed, unpublished while the event is not live', async () => {
    const s = await setup();
    expect(await s.processor.process(s.photo.id)).toBe('processed');
    const row = s.photos.rows.get(s.photo.id)!;
    expect(row).toMatchObject({
      status: 'processed',
      largeKey: `public/5/large/${row.id}.jpg`,
      thumbnailKey: `public/5/thumb/${row.id}.jpg`,
      width: 640,
      height: 480,
      stepErrors: null,
    });
    expect(row.publishedAt).toBeFalsy();
    expect(s.store.objects.has(row.largeKey!) && s.store.objects.has(row.thumbnailKey!)).toBe(true);
    expect(s.photos.bibs.map((b) => b.bib)).toEqual(['1234']);
    expect(s.photos.faces.map((f) => bufferToDescriptor(f.embedding)[0])).toEqual([Math.fround(0.1), Math.fround(0.5)]);
    // Each face is stored with its quality (faceQuality of its signals).
    expect(s.photos.faces.map((f) => f.quality)).toEqual([1, 0.25]);
    expect(s.revisions.bumps).toEqual([['photos', 5]]);
  });

  it('the face step gets the people the BIB step found (one person detection for both steps)', async () => {
    const s = await setup();
    await s.processor.process(s.photo.id);
    expect(s.faces.people).toEqual([[RUNNER]]);
  });

  it('publishes at once when the event is already live', async () => {
    const s = await setup(true);
    await s.processor.process(s.photo.id);
    expect(s.photos.rows.get(s.photo.id)!.publishedAt).toBeInstanceOf(Date);
  });

  it('is idempotent: a processed photo is skipped; a re-run after a crash replaces BIBs and faces instead of adding to them', async () => {
    const s = await setup(true);
    await s.processor.process(s.photo.id);
    const version = s.events.contentVersions.get(5)!;
    expect(await s.processor.process(s.photo.id)).toBe('skipped');
    expect(s.faces.calls).toBe(1);
    // A retry of a processed photo's job follows a crash that may have come before the bumps that follow the save.
    expect(s.events.contentVersions.get(5)).toBe(version + 1);
    expect(s.revisions.bumps).toEqual([
      ['photos', 5],
      ['photos', 5],
    ]);
    s.photos.rows.get(s.photo.id)!.status = 'processing';
    s.faces.faces = [face(0.3)];
    await s.processor.process(s.photo.id);
    expect(s.photos.faces).toHaveLength(1);
    expect(s.photos.bibs).toHaveLength(1);
  });

  it('a failing BIB or face step is recorded on the photo and loses nothing of the other', async () => {
    const s = await setup();
    s.bibs.fail = true;
    await s.processor.process(s.photo.id);
    expect(s.photos.rows.get(s.photo.id)).toMatchObject({
      status: 'processed',
      stepErrors: { bibs: 'BIB reading failed' },
    });
    expect(s.photos.faces).toHaveLength(2);
    // Without the BIB step's people, faces are looked for on the whole photo only.
    expect(s.faces.people).toEqual([[]]);

    const t = await setup();
    t.faces.fail = true;
    await t.processor.process(t.photo.id);
    expect(t.photos.rows.get(t.photo.id)).toMatchObject({
      status: 'processed',
      stepErrors: { faces: 'Face detection failed' },
    });
    expect(t.photos.bibs).toHaveLength(1);
    expect(t.revisions.bumps).toEqual([]);
  });

  it('an original that is not a readable photo fails the photo at once, without retries', async () => {
    const s = await setup();
    await s.store.put(s.photo.originalKey, Buffer.from('garbage'), 'image/jpeg');
    await expect(s.processor.process(s.photo.id)).rejects.toMatchObject({ name: 'UnrecoverableError' });
    expect(s.photos.rows.get(s.photo.id)).toMatchObject({
      status: 'failed',
      stepErrors: { previews: expect.any(String) },
    });
  });

  it("decodes the original once: previews and the BIB step share the oriented photo (at most OCR_MAX_SIDE); faces read the large preview's JPEG without watermark", async () => {
    const s = await setup();
    // 2000x1500 stored, shown 1500x2000 (EXIF orientation 6), with detail for the resizes to work on.
    const noise = Buffer.alloc(2000 * 1500 * 3);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 7919) % 251;
    const original = await sharp(noise, { raw: { width: 2000, height: 1500, channels: 3 } })
      .jpeg({ quality: 90 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    await s.store.put(s.photo.originalKey, original, 'image/jpeg');
    mockDecoded.length = 0;
    await s.processor.process(s.photo.id);
    expect(mockDecoded.filter((b) => b === original)).toHaveLength(1);
    expect(mockDecoded).toHaveLength(1); // nor the large preview decoded again for the watermark
    const [read] = s.bibs.pixels;
    expect([read.width, read.height, read.data.length]).toEqual([1500, 2000, 1500 * 2000 * 3]);
    expect(read.data.equals(await sharp(original).rotate().raw().toBuffer())).toBe(true);
    const [seen] = s.faces.images;
    const large = s.store.objects.get(s.photos.rows.get(s.photo.id)!.largeKey!)!;
    expect(seen.equals(large.body)).toBe(false); // the event's watermark is on the large preview only
    const [analysed, shown] = await Promise.all([seen, large.body].map((jpeg) => sharp(jpeg).metadata()));
    expect([analysed.width, analysed.height, shown.width, shown.height]).toEqual([1200, 1600, 1200, 1600]);
  });

  it('reads a larger photo for BIBs at OCR_MAX_SIDE', async () => {
    const s = await setup();
    await s.store.put(
      s.photo.originalKey,
      await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#3a6' } })
        .jpeg()
        .toBuffer(),
      'image/jpeg',
    );
    await s.processor.process(s.photo.id);
    expect([s.bibs.pixels[0].width, s.bibs.pixels[0].height]).toEqual([
      OCR_MAX_SIDE,
      Math.round((OCR_MAX_SIDE * 2) / 3),
    ]);
    const analysed = await sharp(s.faces.images[0]).metadata();
    expect([analysed.width, analysed.height]).toEqual([1600, 1067]);
    expect(s.photos.rows.get(s.photo.id)).toMatchObject({
      width: 3000,
      height: 2000,
      largeWidth: 1600,
      largeHeight: 1067,
    });
  });

  it('a truncated original fails the photo at once, without retries', async () => {
    const s = await setup();
    const whole = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#3a6' } })
      .jpeg()
      .toBuffer();
    await s.store.put(s.photo.originalKey, whole.subarray(0, Math.round(whole.length * 0.6)), 'image/jpeg');
    await expect(s.processor.process(s.photo.id)).rejects.toMatchObject({ name: 'UnrecoverableError' });
    expect(s.photos.rows.get(s.photo.id)).toMatchObject({
      status: 'failed',
      stepErrors: { previews: expect.stringMatching(/corrupt or truncated/) },
    });
  });

  it('times each step of the job into em_photo_step_seconds{step}, failed steps included', async () => {
    const registry = new Registry();
    const s = await setup(false, registry);
    const slow = s.bibs.readPixels.bind(s.bibs);
    s.bibs.readPixels = async (pixels: Pixels) => (await new Promise((r) => setTimeout(r, 120)), slow(pixels));
    s.faces.fail = true;
    await s.processor.process(s.photo.id);
    const { values } = (await registry.getSingleMetric('em_photo_step_seconds')!.get()) as {
      values: Array<{ metricName?: string; labels: Record<string, string>; value: number }>;
    };
    const of = (suffix: string, step: string) =>
      values.find((v) => v.metricName === `em_photo_step_seconds${suffix}` && v.labels.step === step)?.value;
    for (const step of PHOTO_STEPS) expect([step, of('_count', step)]).toEqual([step, 1]);
    expect(of('_sum', 'bibs')).toBeGreaterThanOrEqual(0.11);
    expect(of('_sum', 'decode')).toBeLessThan(of('_sum', 'bibs')!);
    // The scrape shows it, as /metrics serves it.
    expect(await registry.metrics()).toMatch(/em_photo_step_seconds_count\{step="faces"\} 1/);
  });

  it('markFailed never fails a processed photo', async () => {
    const s = await setup();
    await s.processor.process(s.photo.id);
    await s.processor.markFailed(s.photo.id, 'late failure');
    expect(s.photos.rows.get(s.photo.id)!.status).toBe('processed');
  });

  const entry = (bib: string) => ({
    bib,
    name: `Runner ${bib}`,
    firstName: null,
    lastName: null,
    category: null,
    team: null,
  });

  it('judges reads against the start list: a number not on it is kept as rejected, not searchable', async () => {
    const listed = await setup(true);
    listed.startLists.lists.set(5, [entry('1234')]);
    await listed.processor.process(listed.photo.id);
    expect(listed.photos.bibs).toMatchObject([{ bib: '1234', status: 'accepted', source: 'read', readText: '1234' }]);
    const unlisted = await setup(true);
    unlisted.startLists.lists.set(5, [entry('4321')]);
    await unlisted.processor.process(unlisted.photo.id);
    expect(unlisted.photos.bibs).toMatchObject([{ bib: '1234', status: 'rejected', source: 'read' }]);
    expect((await unlisted.photos.publishedWithBib(5, '1234', { offset: 0, pageSize: 10, page: 1 })).total).toBe(0);
  });

  it("completes an unlisted read to the listed number its surer digits make (the sheet's edge read as a leading 1)", async () => {
    const edge = await setup(true);
    edge.bibs.read = { bib: '13628', weakEnd: 'first' };
    edge.startLists.lists.set(5, [entry('3628')]);
    await edge.processor.process(edge.photo.id);
    expect(edge.photos.bibs).toMatchObject([{ bib: '3628', status: 'completed', readText: '13628' }]);
  });

  it("confirms an unsure read when a photo near it in time holds the number, and bumps the event's version for it", async () => {
    const s = await setup(false);
    s.bibs.read = { bib: '311', weakEnd: null, unsure: true };
    await s.processor.process(s.photo.id);
    expect(s.photos.bibs).toMatchObject([{ bib: '311', status: 'unconfirmed', photoId: s.photo.id }]);
    expect(s.events.contentVersions.get(5)).toBeUndefined();
    const next = s.photos.add({ eventId: 5, status: 'queued', originalKey: 'originals/5/q.jpg', largeKey: null });
    await s.store.put(next.originalKey, await s.store.getBuffer(s.photo.originalKey), 'image/jpeg');
    s.bibs.read = { bib: '311', weakEnd: null };
    await s.processor.process(next.id);
    expect(s.photos.bibs.map((b) => [b.photoId, b.status])).toEqual([
      [s.photo.id, 'accepted'],
      [next.id, 'accepted'],
    ]);
    // Neither photo is published (the event is not live): the bump is for the other photo's confirmed read.
    expect(s.events.contentVersions.get(5)).toBe(2);
  });
});
