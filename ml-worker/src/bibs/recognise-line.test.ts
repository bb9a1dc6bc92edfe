import { ctcDecode, LineReading, paddleLineInput, restoredRepeat } from './recognise-line';

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

describe('restoredRepeat', () => {
  const reading = (text: string): LineReading => ({ text, mean: 0.9, chars: [...text].map(() => 0.9) });

  it('takes the stretched read where it reads a digit twice in a row that the first read merged (1777 for 177)', () => {
    expect(restoredRepeat(reading('177'), reading('1777')).text).toBe('1777');
    expect(restoredRepeat(reading('82'), reading('822')).text).toBe('822');
    expect(restoredRepeat(reading('44'), reading('444')).text).toBe('444');
  });

  it('keeps the read where the stretched one gains any other digit, changes one or reads the same', () => {
    // A new leading digit (a sheet's edge read as a 1) is not a merged repeat: the widened read's glyph check judges it.
    expect(restoredRepeat(reading('463'), reading('1463')).text).toBe('463');
    expect(restoredRepeat(reading('1777'), reading('1727')).text).toBe('1777');
    expect(restoredRepeat(reading('168'), reading('168')).text).toBe('168');
    expect(restoredRepeat(reading('1676'), reading('16761')).text).toBe('1676');
    // Two digits more, or a repeat elsewhere than where the read merged one.
    expect(restoredRepeat(reading('17'), reading('1777')).text).toBe('17');
    expect(restoredRepeat(reading('172'), reading('1772')).text).toBe('1772');
    expect(restoredRepeat(reading('182'), reading('1882')).text).toBe('1882');
    expect(restoredRepeat(reading('182'), reading('1828')).text).toBe('182');
  });
});
