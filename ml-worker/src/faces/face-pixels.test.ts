import { facePixelSignals } from './face-pixels';

/** A width x height RGB image, each pixel's grey level from `grey(x, y)`. */
function image(width: number, height: number, grey: (x: number, y: number) => number): Uint8Array {
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) rgb.fill(grey(x, y), (y * width + x) * 3, (y * width + x) * 3 + 3);
  return rgb;
}

describe('facePixelSignals', () => {
  const box = { x: 10, y: 10, width: 80, height: 80 };

  it('a flat face has no contrast and no sharpness', () => {
    const flat = facePixelSignals(
      image(100, 100, () => 128),
      100,
      100,
      box,
    );
    expect(flat.contrast).toBeCloseTo(0, 6);
    expect(flat.sharpness).toBeCloseTo(0, 6);
  });

  it('a fine checkerboard is sharper than a smooth ramp of the same contrast', () => {
    const checker = facePixelSignals(
      image(100, 100, (x, y) => (((x >> 2) + (y >> 2)) % 2 ? 200 : 50)),
      100,
      100,
      box,
    );
    const ramp = facePixelSignals(
      image(100, 100, (x) => 50 + (150 * x) / 99),
      100,
      100,
      box,
    );
    expect(checker.contrast).toBeGreaterThan(40);
    expect(ramp.contrast).toBeGreaterThan(30);
    expect(checker.sharpness).toBeGreaterThan(10 * ramp.sharpness);
  });

  it('measures only inside the box, cut to the image', () => {
    const left = image(100, 100, (x) => (x < 50 ? 100 : 255));
    expect(facePixelSignals(left, 100, 100, { x: -20, y: 0, width: 60, height: 100 }).contrast).toBeCloseTo(0, 6);
    expect(facePixelSignals(left, 100, 100, { x: 200, y: 0, width: 10, height: 10 })).toEqual({
      contrast: 0,
      sharpness: 0,
    });
  });
});
