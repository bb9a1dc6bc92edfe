import { ctcDecode } from './recognise-line';

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
