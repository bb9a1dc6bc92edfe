import { splitVideo } from './video-parts';

describe('splitVideo', () => {
  it('cuts a video into parts of about the same length on the sampling grid', () => {
    expect(splitVideo(60, 2, 2)).toEqual([
      { start: 0, end: 30 },
      { start: 30, end: 60 },
    ]);
    expect(splitVideo(10.3, 2, 2)).toEqual([
      { start: 0, end: 5.5 },
      { start: 5.5, end: 10.3 },
    ]);
    expect(splitVideo(10, 3, 3).map((p) => p.start)).toEqual([0, 10 / 3, 20 / 3]);
  });

  it('makes one part of a video too short to share, and never more parts than frames', () => {
    expect(splitVideo(0.4, 2, 2)).toEqual([{ start: 0, end: 0.4 }]);
    expect(splitVideo(60, 2, 1)).toEqual([{ start: 0, end: 60 }]);
  });
});
