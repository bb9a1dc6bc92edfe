import { ctcDecode, paddleLineInput, unsharpMask } from './recognise-line';

describe('ctcDecode', () => {
  // 4 classes: blank, '5', '2', 'A'; dictionary lists the non-blank classes in order.
  const dictionary = ['5', '2', 'A'];
  const steps = (...rows: number[][]) => rows.flat();

  it('keeps each character with its own confidence, dropping blanks and repeats', () => {
    const data = steps([0.1, 0.9, 0, 0], [0.1, 0.8, 0, 0], [0.9, 0, 0, 0], [0, 0.6, 0.1, 0], [0, 0, 0.95, 0]);
    const reading = ctcDecode(data, 5, 4, dictionary);
    expect(reading.text).toBe('552');
    expect(reading.chars).toEqual([0.9, 0.6, 0.95]);
    expect(reading.mean).toBeCloseTo((0.9 + 0.6 + 0.95) / 3);
  });

  it('reads nothing from blanks only', () => {
    expect(ctcDecode(steps([1, 0, 0, 0], [1, 0, 0, 0]), 2, 4, dictionary)).toEqual({ text: '', chars: [], mean: 0 });
  });
});

describe('paddleLineInput', () => {
  it("scales B, G, R planes to -1..1 and pads the line's right with 0 to 320 columns, as PaddleOCR feeds it", () => {
    // One row: a white pixel, then a pure red one.
    const input = paddleLineInput({ data: [255, 255, 255, 255, 255, 0, 0, 255], width: 2, height: 1 });
    expect({ width: input.width, height: input.height, length: input.data.length }).toEqual({
      width: 320,
      height: 1,
      length: 960,
    });
    const [blue, green, red] = [0, 1, 2].map((plane) => [...input.data.slice(plane * 320, plane * 320 + 3)]);
    expect(blue).toEqual([1, -1, 0]);
    expect(green).toEqual([1, -1, 0]);
    expect(red).toEqual([1, 1, 0]);
  });
});

describe('unsharpMask', () => {
  /** A row of grey pixels (R = G = B = each level, alpha 200), 1 px high. */
  const row = (levels: number[]) => ({
    data: Uint8Array.from(levels.flatMap((v) => [v, v, v, 200])),
    width: levels.length,
    height: 1,
  });
  const greys = (image: { data: ArrayLike<number> }) => Array.from(image.data).filter((_, i) => i % 4 === 0);

  it("steepens a blurred stroke's edges, dark side darker and paper side lighter, and leaves flat paper and alpha as they are", () => {
    // Paper 200, a stroke spread by blur over 3 px either side down to 60.
    const blurred = row([200, 200, 200, 200, 160, 110, 60, 60, 60, 110, 160, 200, 200, 200, 200, 200]);
    const sharpened = unsharpMask(blurred, { sigma: 1, amount: 1 });
    const [before, after] = [greys(blurred), greys(sharpened)];
    expect(after[0]).toBe(200);
    expect(after[15]).toBe(200);
    expect(after[7]).toBeLessThan(before[7]); // the stroke's core darker
    expect(after[3]).toBeGreaterThan(before[3]); // the paper beside its edge lighter
    expect(Array.from(sharpened.data).filter((_, i) => i % 4 === 3)).toEqual(new Array(16).fill(200));
  });

  it('is stronger with a larger amount, and clamps to 0-255', () => {
    const edge = row([255, 255, 255, 255, 0, 0, 0, 0]);
    const once = greys(unsharpMask(edge, { sigma: 1, amount: 1 }));
    const twice = greys(unsharpMask(edge, { sigma: 1, amount: 2 }));
    expect(Math.min(...twice)).toBe(0);
    expect(Math.max(...twice)).toBe(255);
    const dip = greys(row([100, 100, 100, 100, 50, 50, 50, 50]));
    const [a, b] = [
      greys(unsharpMask(row(dip), { sigma: 1, amount: 1 })),
      greys(unsharpMask(row(dip), { sigma: 1, amount: 2 })),
    ];
    expect(b[4]).toBeLessThan(a[4]);
    expect(b[3]).toBeGreaterThan(a[3]);
    expect(once).toHaveLength(8);
  });
});
