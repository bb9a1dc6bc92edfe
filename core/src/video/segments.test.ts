import { buildSegments, ClipSettings, toClockTime } from './segments';

const settings: ClipSettings = { maxGapSeconds: 3, minSegmentSeconds: 1, paddingStartSeconds: 0, paddingEndSeconds: 0, maxDurationSeconds: 30 };
const seen = (from: number, to: number, fps = 2) => Array.from({ length: Math.round((to - from) * fps) }, (_, i) => from + i / fps);

describe('buildSegments', () => {
  it('one run of sightings is one segment covering the last frame interval', () => {
    expect(buildSegments(seen(5, 9), 2, 60, settings)).toEqual([{ start: 5, end: 9 }]);
  });

  it('gaps up to maxGap join; longer gaps split', () => {
    expect(buildSegments([...seen(5, 7), ...seen(9.5, 11)], 2, 60, settings)).toEqual([{ start: 5, end: 11 }]);
    expect(buildSegments([...seen(5, 7), ...seen(14, 16)], 2, 60, settings)).toEqual([{ start: 5, end: 7 }, { start: 14, end: 16 }]);
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
