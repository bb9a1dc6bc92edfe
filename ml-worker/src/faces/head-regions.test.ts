import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { PersonDetector } from '../bibs/person-detector';
import { FaceAnalyzer } from './face-analyzer';
import { PHOTO_FACE_OPTIONS } from './face-options';
import { DEFAULT_HEAD_REGION_RULES, headRegions } from './head-regions';

const person = (x: number, y: number, width: number, height: number, score = 0.9) => ({ x, y, width, height, score });

describe('headRegions', () => {
  // A 1000x1000 photo; a standing person 200 px wide, 600 px tall, from (400, 200).
  const runner = person(0.4, 0.2, 0.2, 0.6);

  it('is a square as wide as the person at the top of the person, from a little above', () => {
    expect(headRegions([runner], [], 1000, 1000)).toEqual([{ left: 400, top: 180, width: 200, height: 200 }]);
  });

  it('is as tall as a person lying or cut by the frame (the shorter side)', () => {
    expect(headRegions([person(0.1, 0.5, 0.6, 0.15)], [], 1000, 1000)).toEqual([
      { left: 325, top: 485, width: 150, height: 150 },
    ]);
  });

  it('skips a person whose head region holds a face already, and looks at the one without', () => {
    const other = person(0.7, 0.3, 0.15, 0.5);
    const faceOfRunner = { x: 470, y: 220, width: 60, height: 70 };
    expect(headRegions([runner, other], [faceOfRunner], 1000, 1000)).toEqual([
      { left: 700, top: 285, width: 150, height: 150 },
    ]);
  });

  it('skips people the detector is unsure of, and people too small to hold a face big enough to keep', () => {
    expect(
      headRegions([person(0.4, 0.2, 0.2, 0.6, DEFAULT_HEAD_REGION_RULES.minPersonScore - 0.01)], [], 1000, 1000),
    ).toEqual([]);
    expect(headRegions([person(0.4, 0.2, 0.09, 0.3)], [], 1000, 1000)).toEqual([]);
  });

  it('looks once at a head two overlapping detections of one person share', () => {
    expect(headRegions([runner, person(0.41, 0.21, 0.19, 0.55, 0.5)], [], 1000, 1000)).toHaveLength(1);
  });

  it('looks at most at maxRegions heads, those of the people the detector is surest of', () => {
    const crowd = Array.from({ length: 10 }, (_, i) => person(i * 0.1, 0.3, 0.1, 0.5, 0.4 + i * 0.05));
    const regions = headRegions(crowd, [], 2000, 2000);
    expect(regions).toHaveLength(DEFAULT_HEAD_REGION_RULES.maxRegions);
    expect(regions.map((r) => r.left)).toEqual([1800, 1600, 1400, 1200, 1000, 800]);
  });

  it('is cut to the photo', () => {
    expect(headRegions([person(0.9, 0, 0.2, 0.6)], [], 1000, 1000)).toEqual([
      { left: 900, top: 0, width: 100, height: 200 },
    ]);
  });
});

describe('FaceAnalyzer, heads of people (real models)', () => {
  const faces = new FaceAnalyzer();
  const persons = new PersonDetector();
  // One after the other: both initialise the tfjs backend of this thread.
  beforeAll(async () => {
    await faces.load();
    await persons.load();
  }, 120_000);

  it('finds a face in the head region of a person the whole-photo passes miss, as version 3, near the same face seen large', async () => {
    // A demo photo of three people, shrunk to 45% on a larger grey photo: faces of ~100-130 px.
    const original = readFileSync(
      path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', 'sample2.jpg'),
    );
    const at = { x: 300, y: 200, scale: 0.45 };
    const { width = 0, height = 0 } = await sharp(original).metadata();
    const shrunk = await sharp(original)
      .resize(Math.round(width * at.scale))
      .png()
      .toBuffer();
    const photo = await sharp({
      create: { width: 1920, height: 1280, channels: 3, background: { r: 110, g: 110, b: 110 } },
    })
      .composite([{ input: shrunk, left: at.x, top: at.y }])
      .jpeg({ quality: 92 })
      .toBuffer();
    const { data, info } = await sharp(photo).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const people = await persons.detect({ data, width: info.width, height: info.height });

    const whole = await faces.detectAll(photo, PHOTO_FACE_OPTIONS);
    const withHeads = await faces.detectAll(photo, PHOTO_FACE_OPTIONS, people);
    const added = withHeads.filter(
      (f) => !whole.some((w) => Math.abs(w.box.x - f.box.x) < 0.01 && Math.abs(w.box.y - f.box.y) < 0.01),
    );
    expect(withHeads).toHaveLength(whole.length + 1);
    expect(added).toHaveLength(1);
    expect(added[0].descriptorVersion).toBe(5);
    expect(added[0].box.width * 1920).toBeGreaterThanOrEqual(PHOTO_FACE_OPTIONS.minFaceWidth);

    // The same face on the full-size photo: the added one's centre, mapped back, lies in its box; the descriptors agree.
    const cx = ((added[0].box.x + added[0].box.width / 2) * 1920 - at.x) / at.scale / width;
    const cy = ((added[0].box.y + added[0].box.height / 2) * 1280 - at.y) / at.scale / height;
    const same = (await faces.detectAll(original, { ...PHOTO_FACE_OPTIONS, detector: 'tiny' })).find(
      (f) => cx >= f.box.x && cx <= f.box.x + f.box.width && cy >= f.box.y && cy <= f.box.y + f.box.height,
    );
    expect(same).toBeDefined();
    let d = 0;
    for (let i = 0; i < 128; i++) d += (added[0].descriptor[i] - same!.descriptor[i]) ** 2;
    expect(Math.sqrt(d)).toBeLessThan(0.52);
    // Not asked for (the video and selfie paths): the whole-photo passes only.
    expect(await faces.detectAll(photo, { ...PHOTO_FACE_OPTIONS, personHeads: false }, people)).toHaveLength(
      whole.length,
    );
  }, 180_000);
});
