import { buildSegments, ClipSettings, toClockTime } from './segments';

const settings: ClipSettings = {
  maxGapSeconds: 3,
  minSegmentSeconds: 1,
  paddingStartSeconds: 0,
  paddingEndSeconds: 0,
  maxDurationSeconds: 30,
};
const seen = (from: number, to: number, fps = 2) =>
  Array.from({ length: Math.round((to - from) * fps) }, (_, i) => from + i / fps);

describe('buildSegments', () => {
  it('one run of sightings is one segment covering the last frame interval', () => {
    expect(buildSegments(seen(5, 9), 2, 60, settings)).toEqual([{ start: 5, end: 9 }]);
  });

  it('gaps up to maxGap join; longer gaps split', () => {
    expect(buildSegments([...seen(5, 7), ...seen(9.5, 11)], 2, 60, settings)).toEqual([{ start: 5, end: 11 }]);
    expect(buildSegments([...seen(5, 7), ...seen(14, 16)], 2, 60, settings)).toEqual([
      { start: 5, end: 7 },
      { start: 14, end: 16 },
    ]);
  });

  it('drops sightings too short to make a window (sparse matches give nothing)', () => {
    expect(buildSegments([3, 20, 40], 2, 60, settings)).toEqual([]);
    expect(buildSegments([3, 3.5], 2, 60, settings)).toEqual([{ start: 3, end: 4 }]);
  });

  it('pads, clamps to the video, and merges windows that meet', () => {
    const padded = { ...settings, paddingStartSeconds: 2, paddingEndSeconds: 2 };
    expect(buildSegments(seen(1, 3), 2, 60, padded)).toEqual([{ start: 0, end: 5 }]);
    expect(buildSegments(seen(57, 60), 2, 60, padded)).toEqual([{ start: 55, end: 60 }]);
    expect(buildSegments([...seen(5, 7), ...seen(11, 13)], 2, 60, padded)).toEqual([{ start: 3, end: 15 }]);
  });

  it('never pads into another shot: a window ends at the cut after the last sighting and starts no earlier than its shot', () => {
    const padded = { ...settings, paddingStartSeconds: 2, paddingEndSeconds: 2 };
    // Seen 5-9.5 s; the next shot starts at 10 s, the shot before ended at 4 s.
    expect(buildSegments(seen(5, 10), 2, 60, padded, [4, 10, 30])).toEqual([{ start: 4, end: 10 }]);
    // Within a shot the event's padding stays.
    expect(buildSegments(seen(15, 20), 2, 60, padded, [4, 10, 30])).toEqual([{ start: 13, end: 22 }]);
    // Without shot changes (videos indexed before), as before.
    expect(buildSegments(seen(5, 10), 2, 60, padded)).toEqual([{ start: 3, end: 12 }]);
  });

  it('a run breaks at a cut the person was not seen across; seen on both sides in consecutive frames, it goes on', () => {
    // Seen until 9.5 s, cut at 10.5 s, seen again from 11.5 s: within maxGap, but another shot.
    expect(buildSegments([...seen(7, 10), ...seen(11.5, 14)], 2, 60, settings, [10.5])).toEqual([
      { start: 7, end: 10 },
      { start: 11.5, end: 14 },
    ]);
    // The same person on both sides of the cut, frame after frame (another camera angle): one window.
    expect(buildSegments(seen(7, 14), 2, 60, settings, [10.5])).toEqual([{ start: 7, end: 14 }]);
  });

  it('splits windows longer than the maximum into equal clips', () => {
    expect(buildSegments(seen(0, 50), 2, 60, { ...settings, maxDurationSeconds: 20 })).toEqual([
      { start: 0, end: 16.667 },
      { start: 16.667, end: 33.333 },
      { start: 33.333, end: 50 },
    ]);
  });

  it('refuses settings that cannot make clips', () => {
    expect(() => buildSegments([1], 2, 60, { ...settings, maxDurationSeconds: 0 })).toThrow(/Invalid clip settings/);
    expect(() => buildSegments([1], 0, 60, settings)).toThrow(/Invalid clip settings/);
  });

  it('formats clock times', () => {
    expect(toClockTime(0)).toBe('00:00:00');
    expect(toClockTime(3725.4)).toBe('01:02:05');
  });
});
