import { centreInside } from './face-boxes';
import { regionAround } from './refine-face';

describe('regionAround (the crop a BlazeFace face is looked at again in)', () => {
  it("is a square twice the box's larger side, centred on the box", () => {
    expect(regionAround({ x: 400, y: 300, width: 100, height: 80, score: 1 }, 1280, 720)).toEqual({
      left: 350,
      top: 240,
      width: 200,
      height: 200,
    });
  });

  it('is cut to the image at its borders', () => {
    expect(regionAround({ x: 10, y: 650, width: 60, height: 60, score: 1 }, 1280, 720)).toEqual({
      left: 0,
      top: 620,
      width: 100,
      height: 100,
    });
    expect(regionAround({ x: 1250, y: 0, width: 40, height: 40, score: 1 }, 1280, 720)).toEqual({
      left: 1230,
      top: 0,
      width: 50,
      height: 60,
    });
  });
});

describe('centreInside (a refined face must be the BlazeFace face, not a neighbour)', () => {
  it('holds when the centre of the refined box is inside the first box', () => {
    expect(centreInside({ x: 100, y: 100, width: 50, height: 50 }, { x: 110, y: 105, width: 40, height: 60 })).toBe(
      true,
    );
    expect(centreInside({ x: 100, y: 100, width: 50, height: 50 }, { x: 160, y: 100, width: 50, height: 50 })).toBe(
      false,
    );
  });
});
