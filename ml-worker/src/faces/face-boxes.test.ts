import { addUnseen, clip, cutByFrame, iou } from './face-boxes';

describe('face boxes of two detectors', () => {
  it('iou: 1 for the same box, 0 apart, in between when they overlap', () => {
    const a = { x: 0, y: 0, width: 10, height: 10 };
    expect(iou(a, a)).toBe(1);
    expect(iou(a, { x: 20, y: 0, width: 10, height: 10 })).toBe(0);
    expect(iou(a, { x: 5, y: 0, width: 10, height: 10 })).toBeCloseTo(50 / 150);
  });

  it('keeps only the candidates that are no face already found, once each', () => {
    const found = [{ x: 100, y: 100, width: 50, height: 50 }];
    const sameFaceLooser = { x: 90, y: 85, width: 80, height: 80, score: 0.9 }; // the found face's centre lies inside
    const sameFaceTighter = { x: 110, y: 110, width: 30, height: 30, score: 0.9 };
    const other = { x: 300, y: 100, width: 50, height: 50, score: 0.8 };
    const otherAgain = { x: 305, y: 102, width: 48, height: 48, score: 0.7 };
    expect(addUnseen(found, [sameFaceLooser, sameFaceTighter, other, otherAgain])).toEqual([other]);
  });

  it('cutByFrame: a box at the border that is no longer square was cut by the frame; a whole face at the border or a square box inside is not', () => {
    expect(cutByFrame({ x: 0, y: 76, width: 76, height: 103 }, 675, 469)).toBe(true); // the stranger of bbt2
    expect(cutByFrame({ x: 599, y: 76, width: 76, height: 103 }, 675, 469)).toBe(true);
    expect(cutByFrame({ x: 0, y: 76, width: 100, height: 103 }, 675, 469)).toBe(false);
    expect(cutByFrame({ x: 56, y: 104, width: 152, height: 151 }, 675, 469)).toBe(false);
    expect(cutByFrame({ x: 56, y: 104, width: 100, height: 150 }, 675, 469)).toBe(false); // not at the border
  });

  it('clip keeps the box inside the image and its other fields', () => {
    expect(clip({ x: -10, y: 5, width: 50, height: 500, score: 0.9 }, 100, 100)).toEqual({ x: 0, y: 5, width: 40, height: 95, score: 0.9 });
  });
});
