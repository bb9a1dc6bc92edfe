import { FaceBox } from './face-tracks';
import { VideoFaceFinder } from './video-faces';

const FPS = 2;
const face = (x: number): FaceBox => ({ x, y: 0.2, width: 0.1, height: 0.1 });
/** A face the script shows turned (y = 0.3: yaw 0.7, quality 0.25); others are clear (quality 1). */
const turned = (x: number): FaceBox => ({ x, y: 0.3, width: 0.1, height: 0.1 });

/** A scripted video: the boxes on screen at each time; each person's descriptor is their x. Records the frames analysed. */
class ScriptedFaces {
  analysedAt: number[] = [];
  /** The faces BlazeFace was told to look near, per analysed frame (undefined: the whole frame). */
  nearAt = new Map<number, FaceBox[] | undefined>();
  constructor(
    private readonly script: (time: number) => FaceBox[],
    private readonly unconfirmed = new Set<number>(),
  ) {}
  async detectFrameFaces(
    rgb: Buffer,
    _w: number,
    _h: number,
    pick: (boxes: FaceBox[]) => boolean[],
    _options?: unknown,
    near?: FaceBox[],
  ) {
    const time = rgb.readFloatLE(0);
    this.analysedAt.push(time);
    this.nearAt.set(time, near);
    const boxes = this.script(time);
    const wanted = pick(boxes);
    return boxes.map((box, i) => ({
      box,
      score: 0.9,
      descriptorVersion: 2 as const,
      signals: {
        yaw: box.y === 0.3 ? 0.7 : 0,
        proportion: 1,
        eyeDistancePx: 40,
        score: 0.9,
        contrast: 50,
        sharpness: 20,
      },
      descriptor: wanted[i] && !this.unconfirmed.has(box.x) ? Float32Array.from({ length: 128 }, () => box.x) : null,
    }));
  }
}

/** `picture`: the frame's pixels (64x64 RGB) at a time; without, a 4-byte buffer (never the same picture). */
async function run(
  seconds: number,
  script: (time: number) => FaceBox[],
  unconfirmed?: Set<number>,
  picture?: (time: number) => Buffer,
) {
  const faces = new ScriptedFaces(script, unconfirmed);
  const finder = new VideoFaceFinder(faces, 64, 64, FPS);
  const sightings: Awaited<ReturnType<VideoFaceFinder['finish']>> = [];
  for (let i = 0; i < seconds * FPS; i++) {
    const rgb = picture ? Buffer.from(picture(i / FPS)) : Buffer.alloc(4);
    rgb.writeFloatLE(i / FPS, 0);
    sightings.push(...(await finder.frame(rgb, i / FPS)));
  }
  sightings.push(...(await finder.finish()));
  const timesOf = (x: number) =>
    sightings
      .filter((s) => s.descriptor[0] === Math.fround(x))
      .map((s) => s.time)
      .sort((a, b) => a - b);
  return { sightings, timesOf, analysed: faces.analysedAt, finder, nearAt: faces.nearAt };
}

const range = (from: number, to: number) =>
  Array.from({ length: Math.round((to - from) * FPS) }, (_, i) => from + i / FPS);

describe('VideoFaceFinder', () => {
  it('analyses only key frames while nothing changes, and gives every sampled frame its sightings', async () => {
    const { timesOf, analysed, sightings } = await run(20, () => [face(0.1)]);
    expect(timesOf(0.1)).toEqual(range(0, 20));
    expect(new Set(sightings.map((s) => s.track)).size).toBe(1);
    // The first key frame sees a new face: it and the frames before it are analysed; then one frame in 4.
    expect(analysed.length).toBeLessThanOrEqual(5 + 10);
  });

  it('skips the key frames of a still shot (nothing moved since the last analysed frame), and still gives every sampled frame its sightings', async () => {
    const grey = Buffer.alloc(64 * 64 * 3, 110);
    const { timesOf, analysed, sightings, finder } = await run(
      20,
      () => [face(0.1)],
      undefined,
      () => grey,
    );
    expect(timesOf(0.1)).toEqual(range(0, 20));
    expect(new Set(sightings.map((s) => s.track)).size).toBe(1);
    expect(analysed).toEqual([1.5, 0, 0.5, 1]); // the first key frame and the frames before it, then none
    expect(finder.still).toBe(9);
  });

  it('analyses again as soon as the picture changes: a face coming into a still shot is found from its first frame', async () => {
    const grey = Buffer.alloc(64 * 64 * 3, 110);
    const withFace = Buffer.from(grey);
    for (let y = 10; y < 40; y++) withFace.fill(200, (y * 64 + 10) * 3, (y * 64 + 40) * 3);
    const { timesOf } = await run(
      12,
      (t) => (t >= 7 ? [face(0.1)] : []),
      undefined,
      (t) => (t >= 7 ? withFace : grey),
    );
    expect(timesOf(0.1)).toEqual(range(7, 12));
  });

  it('keeps the start and the end of a presence exact to the sampled frame, by analysing the frames around the change', async () => {
    const { timesOf, analysed } = await run(30, (t) =>
      t >= 5.5 && t < 13 ? [face(0.1)] : t >= 20 && t < 26.5 ? [face(0.5), face(0.1)] : [],
    );
    expect(timesOf(0.1)).toEqual([...range(5.5, 13), ...range(20, 26.5)]);
    expect(timesOf(0.5)).toEqual(range(20, 26.5));
    expect(analysed.length).toBeLessThan(60 * 0.6);
  });

  it('looks for faces only the second detector finds over the whole of a key frame, and near the faces of the frames around a frame between', async () => {
    const { nearAt, timesOf } = await run(10, (t) => (t >= 4.5 ? [face(0.1)] : []));
    expect(timesOf(0.1)).toEqual(range(4.5, 10));
    for (const key of [1.5, 3.5, 5.5]) expect(nearAt.get(key)).toBeUndefined();
    // 4, 4.5 and 5 s lie between the key frames 3.5 (no face) and 5.5 (the face): near the face of 5.5 s and of the frame before.
    expect(nearAt.get(4)).toEqual([face(0.1)]);
    expect(nearAt.get(5)).toEqual([face(0.1), face(0.1)]);
  });

  it('keeps one track through a key frame where the face was missed (a turned head)', async () => {
    const { sightings, timesOf } = await run(10, (t) => (t === 3.5 ? [] : [face(0.1)]));
    expect(timesOf(0.1)).toEqual(range(0, 10).filter((t) => t !== 3.5));
    expect(new Set(sightings.map((s) => s.track)).size).toBe(1);
  });

  it('follows a face that moves: each frame where it is, one track', async () => {
    const { sightings, timesOf } = await run(8, (t) => [turned(0.1 + t * 0.01)]);
    expect(sightings.map((s) => s.time).sort((a, b) => a - b)).toEqual(range(0, 8));
    expect(new Set(sightings.map((s) => s.track)).size).toBe(1);
    expect(timesOf(0.1)).toEqual([0, 0.5]); // described at 0, reused at 0.5, refreshed each second after (a turned face)
  });

  it('a face the analyser found but never confirmed (no descriptor though picked) gives no sighting; the others keep theirs', async () => {
    const { sightings, timesOf } = await run(6, () => [face(0.1), face(0.5)], new Set([0.5]));
    expect(timesOf(0.1)).toEqual(range(0, 6));
    expect(sightings.every((s) => s.descriptor[0] === Math.fround(0.1))).toBe(true);
  });

  it('describes a clear face again only every 4 s, a turned one every second it is analysed', async () => {
    // Each descriptor is the face's x when it was computed; the face drifts slowly (the same face to the key frames).
    const clear = await run(8, (t) => [face(0.1 + t * 0.01)]);
    expect(clear.finder.described).toBe(2);
    expect(clear.timesOf(0.1)).toEqual(range(0, 5.5)); // reused until the first key frame 4 s or more later
    const turnedHead = await run(8, (t) => [turned(0.1 + t * 0.01)]);
    // At 0 and 1 s (the first frames, analysed one by one), then at every key frame: 3.5, 5.5, 7.5 s.
    expect(turnedHead.finder.described).toBe(5);
    expect(turnedHead.timesOf(0.1)).toEqual([0, 0.5]);
  });
});

describe('VideoFaceFinder: a followed face that looks as it did', () => {
  /** 64x64 frames: a face-like patch at (10, 10)-(40, 40) (its eyes further apart from `changedAt`), and a corner block that flickers (no key frame is a still shot). */
  const picture =
    (changedAt = Infinity) =>
    (t: number) => {
      const rgb = Buffer.alloc(64 * 64 * 3, 110);
      for (let y = 10; y < 40; y++) rgb.fill(190 - (y - 10) * 2, (y * 64 + 10) * 3, (y * 64 + 40) * 3);
      const eyes = t >= changedAt ? [12, 34] : [18, 28];
      for (const x of eyes) for (let y = 18; y < 22; y++) rgb.fill(40, (y * 64 + x) * 3, (y * 64 + x + 4) * 3);
      const corner = Math.floor(t / 2) % 2 ? 250 : 0;
      for (let y = 54; y < 64; y++) rgb.fill(corner, (y * 64 + 54) * 3, (y * 64 + 64) * 3);
      return rgb;
    };
  // The face's box in the 64x64 frame (y = 0.3 in the script would be a turned face: described again every second).
  const head = (): FaceBox => ({ x: 10 / 64, y: 0.3, width: 30 / 64, height: 30 / 64 });

  it('is not described again while its pixels stay the same, though it is due (a turned face: every second)', async () => {
    const still = await run(10, () => [head()], undefined, picture());
    expect(still.analysed.length).toBeGreaterThan(5); // the picture moves: key frames are analysed
    expect(still.finder.described).toBe(1);
    expect(still.sightings.length).toBe(20);
  });

  it('is described again once it changed (a turn, a word, someone else in its place)', async () => {
    const changed = await run(10, () => [head()], undefined, picture(5));
    expect(changed.finder.described).toBe(2);
  });
});

describe('VideoFaceFinder sighting quality', () => {
  it('a sighting carries the quality of the face its descriptor was computed on, reused with the descriptor', async () => {
    const { sightings } = await run(6, () => [face(0.5)]);
    expect(sightings.length).toBeGreaterThan(0);
    expect(sightings.every((s) => s.quality === 1)).toBe(true);
  });

  it("a shot change ends every track: someone else in the same place in the next shot never carries the last shot's descriptor", async () => {
    // Shot 1 (dark left, light right) shows A at x 0.1 until 10 s; shot 2 (light top, dark bottom) shows B at x 0.13:
    // their boxes overlap (one track, were it not for the cut) and their descriptors are 0.34 apart (no split).
    const shot1 = Buffer.alloc(64 * 64 * 3);
    const shot2 = Buffer.alloc(64 * 64 * 3);
    for (let y = 0; y < 64; y++) {
      for (let x = 0; x < 64; x++) {
        shot1.fill(x < 32 ? 30 : 200, (y * 64 + x) * 3, (y * 64 + x + 1) * 3);
        shot2.fill(y < 32 ? 230 : 60, (y * 64 + x) * 3, (y * 64 + x) * 3 + 2);
      }
    }
    const script = (t: number) => (t < 10 ? [face(0.1)] : [face(0.13)]);
    const { timesOf, finder, sightings } = await run(16, script, undefined, (t) => (t < 10 ? shot1 : shot2));
    expect(finder.shotChanges).toEqual([10]);
    expect(timesOf(0.1)).toEqual(range(0, 10));
    expect(timesOf(0.13)).toEqual(range(10, 16));
    const trackAt = (t: number) => sightings.find((s) => s.time === t)!.track;
    expect(trackAt(10)).not.toBe(trackAt(9.5));
  });

  it('finds no shot change in a shot where a face comes and goes', async () => {
    const grey = Buffer.alloc(64 * 64 * 3, 110);
    const withFace = Buffer.from(grey);
    for (let y = 10; y < 40; y++) withFace.fill(200, (y * 64 + 10) * 3, (y * 64 + 40) * 3);
    const { finder } = await run(
      12,
      (t) => (t >= 7 ? [face(0.1)] : []),
      undefined,
      (t) => (t >= 7 ? withFace : grey),
    );
    expect(finder.shotChanges).toEqual([]);
  });
});
