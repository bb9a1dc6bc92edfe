import { chipTransform, CHIP_SIZE, meanFaceOnChip, sampleChip, usableTransform } from './face-chip';

/** 68 landmarks whose 17-67 are the chip's mean face mapped by image = [a -b; b a] chip + t; the jaw (0-16) far off: the fit ignores it. */
function landmarksThrough(a: number, b: number, tx: number, ty: number) {
  const jaw = Array.from({ length: 17 }, () => ({ x: 1e6, y: -1e6 }));
  return [...jaw, ...meanFaceOnChip().map((p) => ({ x: a * p.x - b * p.y + tx, y: b * p.x + a * p.y + ty }))];
}

describe('chipTransform (dlib get_face_chip_details)', () => {
  it("is the identity for landmarks already on the chip's mean face, whatever the jaw", () => {
    const t = chipTransform(landmarksThrough(1, 0, 0, 0));
    expect(t.a).toBeCloseTo(1, 6);
    expect(t.b).toBeCloseTo(0, 6);
    expect(t.tx).toBeCloseTo(0, 4);
    expect(t.ty).toBeCloseTo(0, 4);
  });

  it('recovers the rotation, scale and shift of a tilted face (so the chip levels the eyes)', () => {
    const angle = (25 * Math.PI) / 180;
    const t = chipTransform(landmarksThrough(2 * Math.cos(angle), 2 * Math.sin(angle), 300, 120));
    expect(Math.atan2(t.b, t.a)).toBeCloseTo(angle, 6);
    expect(Math.hypot(t.a, t.b)).toBeCloseTo(2, 6);
    expect(t.tx).toBeCloseTo(300, 3);
    expect(t.ty).toBeCloseTo(120, 3);
  });

  it('is unusable for degenerate landmarks (all on one point, or not numbers)', () => {
    expect(usableTransform(chipTransform(landmarksThrough(1, 0, 0, 0)))).toBe(true);
    expect(usableTransform(chipTransform(Array.from({ length: 68 }, () => ({ x: 5, y: 5 }))))).toBe(false);
    expect(usableTransform(chipTransform(Array.from({ length: 68 }, () => ({ x: NaN, y: 5 }))))).toBe(false);
  });

  it('needs the 68 landmarks', () => {
    expect(() => chipTransform([{ x: 0, y: 0 }])).toThrow(/68 landmarks/);
  });
});

describe('sampleChip', () => {
  const width = 4;
  const height = 3;
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rgb.set([10 * x, 50 * y, 7], (y * width + x) * 3);
  const pixel = (chip: Float32Array, u: number, v: number) =>
    Array.from(chip.subarray((v * CHIP_SIZE + u) * 3, (v * CHIP_SIZE + u) * 3 + 3));

  it('copies the image under the identity, and is black outside it', () => {
    const chip = sampleChip(rgb, width, height, { a: 1, b: 0, tx: 0, ty: 0 });
    expect(chip).toHaveLength(CHIP_SIZE * CHIP_SIZE * 3);
    expect(pixel(chip, 2, 1)).toEqual([20, 50, 7]);
    expect(pixel(chip, 3, 2)).toEqual([30, 100, 7]);
    expect(pixel(chip, 10, 10)).toEqual([0, 0, 0]);
  });

  it('interpolates between pixel centres', () => {
    const chip = sampleChip(rgb, width, height, { a: 1, b: 0, tx: 0.5, ty: 0 });
    expect(pixel(chip, 1, 1)).toEqual([15, 50, 7]);
  });
});
