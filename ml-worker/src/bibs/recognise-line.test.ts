import { ctcDecode, paddleLineInput } from './recognise-line';

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
