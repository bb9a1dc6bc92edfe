import { FaceBox } from '@em/core/media';
import { VideoFaceFinder } from './video-faces';

const FPS = 2;
const face = (x: number): FaceBox => ({ x, y: 0.2, width: 0.1, height: 0.1 });

/** A scripted video: the boxes on screen at each time; each person's descriptor is their x. Records the frames analysed. */
class ScriptedFaces {
  analysedAt: number[] = [];
  constructor(private readonly script: (time: number) => FaceBox[]) {}
  async detectFrameFaces(rgb: Buffer, _w: number, _h: number, pick: (boxes: FaceBox[]) => boolean[]) {
    const time = rgb.readFloatLE(0);
    this.analysedAt.push(time);
    const boxes = this.script(time);
    const wanted = pick(boxes);
    return boxes.map((box, i) => ({ box, score: 0.9, descriptorVersion: 2 as const, signals: { yaw: 0, proportion: 1, eyeDistancePx: 40, score: 0.9, contrast: 50, sharpness: 20 }, descriptor: wanted[i] ? Float32Array.from({ length: 128 }, () => box.x) : null }));
  }
}

async function run(seconds: number, script: (time: number) => FaceBox[]) {
  const faces = new ScriptedFaces(script);
  const finder = new VideoFaceFinder(faces, 64, 64, FPS);
  const sightings = [];
  for (let i = 0; i < seconds * FPS; i++) {
    const rgb = Buffer.alloc(4);
    rgb.writeFloatLE(i / FPS, 0);
    sightings.push(...(await finder.frame(rgb, i / FPS)));
  }
  sightings.push(...(await finder.finish()));
  const timesOf = (x: number) => sightings.filter((s) => s.descriptor[0] === Math.fround(x)).map((s) => s.time).sort((a, b) => a - b);
  return { sightings, timesOf, analysed: faces.analysedAt, finder };
}

const range = (from: number, to: number) => Array.from({ length: Math.round((to - from) * FPS) }, (_, i) => from + i / FPS);

describe('VideoFaceFinder', () => {
  it('analyses only key frames while nothing changes, and gives every sampled frame its sightings', async () => {
    const { timesOf, analysed, sightings } = await run(20, () => [face(0.1)]);
    expect(timesOf(0.1)).toEqual(range(0, 20));
    expect(new Set(sightings.map((s) => s.track)).size).toBe(1);
    // The first key frame sees a new face: it and the frames before it are analysed; then one frame in 4.
    expect(analysed.length).toBeLessThanOrEqual(5 + 10);
  });

  it('keeps the start and the end of a presence exact to the sampled frame, by analysing the frames around the change', async () => {
    const { timesOf, analysed } = await run(30, (t) => (t >= 5.5 && t < 13 ? [face(0.1)] : t >= 20 && t < 26.5 ? [face(0.5), face(0.1)] : []));
    expect(timesOf(0.1)).toEqual([...range(5.5, 13), ...range(20, 26.5)]);
    expect(timesOf(0.5)).toEqual(range(20, 26.5));
    expect(analysed.length).toBeLessThan(60 * 0.6);
  });

  it('keeps one track through a key frame where the face was missed (a turned head)', async () => {
    const { sightings, timesOf } = await run(10, (t) => (t === 3.5 ? [] : [face(0.1)]));
    expect(timesOf(0.1)).toEqual(range(0, 10).filter((t) => t !== 3.5));
    expect(new Set(sightings.map((s) => s.track)).size).toBe(1);
  });

  it('follows a face that moves: each frame where it is, one track', async () => {
    const { sightings, timesOf } = await run(8, (t) => [face(0.1 + t * 0.01)]);
    expect(sightings.map((s) => s.time).sort((a, b) => a - b)).toEqual(range(0, 8));
    expect(new Set(sightings.map((s) => s.track)).size).toBe(1);
    expect(timesOf(0.1)).toEqual([0, 0.5]); // described at 0, reused at 0.5, refreshed each second after
  });
});

describe('VideoFaceFinder sighting quality', () => {
  it('a sighting carries the quality of the face its descriptor was computed on, reused with the descriptor', async () => {
    const { sightings } = await run(6, () => [face(0.5)]);
    expect(sightings.length).toBeGreaterThan(0);
    expect(sightings.every((s) => s.quality === 1)).toBe(true);
  });
});
