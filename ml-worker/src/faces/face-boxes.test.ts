import { addUnseen, iou } from './face-boxes';

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
});
