import { AdaptiveSampler, FaceTracker, overlap } from './face-tracks';

const box = (x: number, y = 0.2, size = 0.1) => ({ x, y, width: size, height: size });
const options = { minOverlap: 0.3, maxGapSeconds: 1, refreshSeconds: 1 };

describe('FaceTracker', () => {
  it('follows a face that moves a little and keeps two people apart', () => {
    const tracker = new FaceTracker(options);
    const [a, b] = tracker.assign(0, [box(0.1), box(0.6)]);
    expect(a.track).not.toBe(b.track);
    const next = tracker.assign(0.5, [box(0.62), box(0.11)]);
    expect(next.map((n) => n.track)).toEqual([b.track, a.track]);
  });

  it('describes a new face at once, a followed one only when its descriptor is refreshSeconds old', () => {
    const tracker = new FaceTracker(options);
    expect(tracker.assign(0, [box(0.1)])[0].describe).toBe(true);
    expect(tracker.assign(0.5, [box(0.1)])[0].describe).toBe(false);
    expect(tracker.assign(1, [box(0.1)])[0].describe).toBe(true);
  });

  it('ends a track after the gap and starts a new one for a face elsewhere', () => {
    const tracker = new FaceTracker(options);
    const [first] = tracker.assign(0, [box(0.1)]);
    expect(tracker.assign(0.5, [box(0.1)])[0].track).toBe(first.track);
    expect(tracker.assign(2, [box(0.1)])[0].track).not.toBe(first.track);
    const [elsewhere] = tracker.assign(2.5, [box(0.5)]);
    expect(elsewhere.describe).toBe(true);
  });

  it('gives one box to one track only (the best overlap wins)', () => {
    const tracker = new FaceTracker(options);
    const [a] = tracker.assign(0, [box(0.1)]);
    const [near, far] = tracker.assign(0.5, [box(0.1), box(0.13)]);
    expect(near.track).toBe(a.track);
    expect(far.track).not.toBe(a.track);
  });

  it('splits a track when its fresh descriptor shows someone else', () => {
    const tracker = new FaceTracker(options);
    const [a] = tracker.assign(0, [box(0.1)]);
    const replaced = tracker.split(a.track, 1);
    expect(replaced).not.toBe(a.track);
    expect(tracker.assign(1.5, [box(0.1)])[0].track).toBe(replaced);
  });

  it('measures overlap as intersection over union', () => {
    expect(overlap(box(0), box(0))).toBeCloseTo(1, 9);
    expect(overlap(box(0), box(0.5))).toBe(0);
    expect(overlap(box(0), box(0.05))).toBeCloseTo(1 / 3, 6);
  });
});

describe('AdaptiveSampler', () => {
  it('analyses one frame in idleStride without faces, every frame with faces, and the skipped one before a face appears', () => {
    const sampler = new AdaptiveSampler<number>(2);
    const faces = new Map([[4, 1], [5, 1], [6, 1], [3, 1]]);
    const analysed: number[] = [];
    for (let frame = 0; frame < 10; frame++) {
      for (const due of sampler.next(frame, frame)) {
        analysed.push(due.frame);
        for (const earlier of sampler.seen(faces.get(due.frame) ?? 0)) analysed.push(earlier.frame);
      }
    }
    expect(analysed).toEqual([0, 2, 4, 3, 5, 6, 7, 9]);
  });
});
