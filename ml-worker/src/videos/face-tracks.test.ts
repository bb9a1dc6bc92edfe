import { FaceTracker, overlap } from './face-tracks';

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

  it('tells whether a frame shows the faces of the last analysed one, each where it was (without committing)', () => {
    const tracker = new FaceTracker({ ...options, maxGapSeconds: 3 });
    tracker.assign(0, [box(0.1), box(0.6)]);
    expect(tracker.sameFaces(0, [box(0.62), box(0.11)])).toBe(true);
    expect(tracker.sameFaces(0, [box(0.1)])).toBe(false); // one left
    expect(tracker.sameFaces(0, [box(0.1), box(0.6), box(0.3)])).toBe(false); // one came
    expect(tracker.sameFaces(0, [box(0.1), box(0.4)])).toBe(false); // one moved away
    expect(tracker.sameFaces(0, [box(0.1), box(0.11)])).toBe(false); // two boxes on one face
    tracker.assign(2, []);
    expect(tracker.sameFaces(2, [])).toBe(true);
    expect(tracker.assign(2.5, [box(0.1)])[0].describe).toBe(true);
  });

  it('measures overlap as intersection over union', () => {
    expect(overlap(box(0), box(0))).toBeCloseTo(1, 9);
    expect(overlap(box(0), box(0.5))).toBe(0);
    expect(overlap(box(0), box(0.05))).toBeCloseTo(1 / 3, 6);
  });
});
