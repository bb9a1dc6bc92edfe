import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import * as describing from './describe-faces';
import { FaceAnalyzer } from './face-analyzer';
import { FACE_DESCRIPTOR_VERSION, maxDistanceFor, SECOND_DETECTOR_DESCRIPTOR_VERSION } from '@em/core/media';
import { PHOTO_FACE_OPTIONS, VIDEO_FACE_OPTIONS } from './face-options';

const demo = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
const TINY_ALONE = { ...PHOTO_FACE_OPTIONS, detector: 'tiny' as const };

/** The largest face of a photo, its lower 40% blacked out (a mask, a hand), on a grey 640x480 canvas. */
async function occludedFace(
  image: Buffer,
  box: { x: number; y: number; width: number; height: number },
): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(image).metadata();
  const margin = Math.round(box.width * width * 0.4);
  const left = Math.max(0, Math.round(box.x * width) - margin);
  const top = Math.max(0, Math.round(box.y * height) - margin);
  const crop = await sharp(image)
    .extract({
      left,
      top,
      width: Math.min(width - left, Math.round(box.width * width) + 2 * margin),
      height: Math.min(height - top, Math.round(box.height * height) + 2 * margin),
    })
    .resize(200, 200, { fit: 'fill' })
    .composite([
      {
        input: { create: { width: 200, height: 80, channels: 3, background: { r: 0, g: 0, b: 0 } } },
        left: 0,
        top: 120,
      },
    ])
    .png()
    .toBuffer();
  return sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 110, g: 110, b: 110 } } })
    .composite([{ input: crop, left: 220, top: 140 }])
    .jpeg()
    .toBuffer();
}

/** A 720p frame with the face at `box` of a photo as a turned head of 120 px (narrowed to 70% and tilted 15 degrees, as the harder face set turns heads). */
async function turnedHeadFrame(
  image: Buffer,
  box: { x: number; y: number; width: number; height: number },
): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(image).metadata();
  const side = Math.round(Math.max(box.width * width, box.height * height) * 1.6);
  const left = Math.max(0, Math.round((box.x + box.width / 2) * width - side / 2));
  const top = Math.max(0, Math.round((box.y + box.height / 2) * height - side / 2));
  const crop = await sharp(image)
    .extract({ left, top, width: Math.min(side, width - left), height: Math.min(side, height - top) })
    .resize(84, 120, { fit: 'fill' })
    .png()
    .toBuffer();
  const turned = await sharp(crop)
    .rotate(15, { background: { r: 110, g: 110, b: 110 } })
    .png()
    .toBuffer();
  return sharp({ create: { width: 1280, height: 720, channels: 3, background: { r: 110, g: 110, b: 110 } } })
    .composite([{ input: turned, left: 300, top: 250 }])
    .removeAlpha()
    .raw()
    .toBuffer();
}

const distance = (a: Float32Array, b: Float32Array) => Math.sqrt(a.reduce((sum, v, i) => sum + (v - b[i]) ** 2, 0));

describe('FaceAnalyzer with the second detector (real models)', () => {
  const faces = new FaceAnalyzer();
  beforeAll(() => faces.load(), 120_000);

  it("selfies are described in both families: dlib's chip (version 4) as photo faces are now, face-api's box (version 2) as faces stored before", async () => {
    const image = readFileSync(path.join(demo, 'sample3.jpg'));
    const selfie = await faces.embedSelfie(image);
    const photo = (await faces.detectAll(image, PHOTO_FACE_OPTIONS))
      .filter((f) => f.descriptorVersion === FACE_DESCRIPTOR_VERSION)
      .sort((a, b) => b.box.width - a.box.width)[0];
    expect(selfie.descriptor).toHaveLength(128);
    expect(selfie.boxDescriptor).toHaveLength(128);
    expect(distance(selfie.descriptor!, selfie.boxDescriptor!)).toBeGreaterThan(0.01);
    // The largest face as a photo face (same family) is the selfie's face.
    expect(distance(selfie.descriptor!, photo.descriptor)).toBeLessThan(0.3);
  }, 120_000);

  it('a selfie of several people: only its largest face is described (once mirrored, once in the box family), and it is the largest photo face', async () => {
    const image = readFileSync(path.join(demo, 'sample1.jpg'));
    const described = jest.spyOn(describing, 'describeFaces');
    try {
      const selfie = await faces.embedSelfie(image);
      expect(selfie.facesFound).toBeGreaterThan(1);
      // Each detector's pass describes its faces (none when it found none): the chip family, then the box family.
      expect(described.mock.calls.map(([, landmarks]) => landmarks.length).filter((n) => n > 0)).toEqual([1, 1]);
      const photo = (await faces.detectAll(image, PHOTO_FACE_OPTIONS))
        .filter((f) => f.descriptorVersion === FACE_DESCRIPTOR_VERSION)
        .sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height)[0];
      expect(distance(selfie.descriptor!, photo.descriptor)).toBeLessThan(0.3);
    } finally {
      described.mockRestore();
    }
  }, 120_000);

  it('video frames: the tiny detector finds the same faces, in the same boxes, on the frame resized to its input before padding', async () => {
    const { data } = await sharp(readFileSync(path.join(demo, 'sample6.jpg')))
      .resize(1280, 720, { fit: 'contain', background: { r: 110, g: 110, b: 110 } })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const tiny = { ...VIDEO_FACE_OPTIONS, detector: 'tiny' as const };
    const whole = await faces.detectFrame(data, 1280, 720, tiny);
    const resized = await faces.detectFrameFaces(data, 1280, 720, (boxes) => boxes.map(() => true), tiny);
    expect(whole.length).toBeGreaterThan(2);
    expect(resized).toHaveLength(whole.length);
    const byX = (a: { box: { x: number } }, b: { box: { x: number } }) => a.box.x - b.box.x;
    for (const [i, f] of [...resized].sort(byX).entries()) {
      const w = [...whole].sort(byX)[i];
      for (const k of ['x', 'y', 'width', 'height'] as const) expect(f.box[k]).toBeCloseTo(w.box[k], 3);
      expect(distance(f.descriptor!, w.descriptor)).toBeLessThan(0.01);
    }
  }, 120_000);

  it('photos: every face of the tiny detector is kept (version 4), and a half-hidden face only BlazeFace finds comes as version 5', async () => {
    const image = readFileSync(path.join(demo, 'sample3.jpg'));
    const tiny = await faces.detectAll(image, TINY_ALONE);
    const both = await faces.detectAll(image, PHOTO_FACE_OPTIONS);
    expect(tiny.length).toBeGreaterThan(0);
    expect(both.filter((f) => f.descriptorVersion === FACE_DESCRIPTOR_VERSION)).toHaveLength(tiny.length);

    const largest = [...tiny].sort((a, b) => b.box.width - a.box.width)[0];
    const hidden = await occludedFace(image, largest.box);
    expect(await faces.detectAll(hidden, TINY_ALONE)).toHaveLength(0);
    const found = await faces.detectAll(hidden, PHOTO_FACE_OPTIONS);
    expect(found).toHaveLength(1);
    expect(found[0].descriptorVersion).toBe(SECOND_DETECTOR_DESCRIPTOR_VERSION);
    expect(found[0].descriptor).toHaveLength(128);
    // The same person: within what version 5 matches at the default threshold.
    expect(distance(found[0].descriptor, largest.descriptor)).toBeLessThan(
      maxDistanceFor(SECOND_DETECTOR_DESCRIPTOR_VERSION, 0.56),
    );
  }, 120_000);

  it('video frames: a turned head of 120 px in 720p is found by BlazeFace in square tiles and matches its own face; squashed whole, the frame showed none; told where faces were (a frame between), BlazeFace looks only there', async () => {
    const image = readFileSync(path.join(demo, 'sample5.jpg'));
    const largest = (await faces.detectAll(image, PHOTO_FACE_OPTIONS))
      .filter((f) => f.descriptorVersion === FACE_DESCRIPTOR_VERSION)
      .sort((a, b) => b.box.width - a.box.width)[0];
    const frame = await turnedHeadFrame(image, largest.box);
    const all = (boxes: unknown[]) => boxes.map(() => true);
    const squashed = await faces.detectFrameFaces(frame, 1280, 720, all, { ...VIDEO_FACE_OPTIONS, squareTiles: false });
    expect(squashed.filter((f) => f.descriptor)).toHaveLength(0);
    const found = (await faces.detectFrameFaces(frame, 1280, 720, all, VIDEO_FACE_OPTIONS)).filter((f) => f.descriptor);
    expect(found).toHaveLength(1);
    expect(found[0].descriptorVersion).toBe(SECOND_DETECTOR_DESCRIPTOR_VERSION);
    expect(distance(found[0].descriptor!, largest.descriptor)).toBeLessThan(0.45);
    // Not picked: located only (no landmarks, no descriptor).
    const located = await faces.detectFrameFaces(
      frame,
      1280,
      720,
      (boxes) => boxes.map(() => false),
      VIDEO_FACE_OPTIONS,
    );
    expect(located).toHaveLength(1);
    expect(located[0]).toMatchObject({ descriptor: null, signals: null });
    // A frame between key frames: BlazeFace looks only near the faces of the frames around it.
    const near = await faces.detectFrameFaces(frame, 1280, 720, all, VIDEO_FACE_OPTIONS, [found[0].box]);
    expect(near.filter((f) => f.descriptor)).toHaveLength(1);
    expect(near[0].box).toEqual(found[0].box);
    expect(await faces.detectFrameFaces(frame, 1280, 720, all, VIDEO_FACE_OPTIONS, [])).toHaveLength(0);
  }, 120_000);
});
