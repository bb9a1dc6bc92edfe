import type { Rgba } from './box-geometry';
import type { LineReading } from './recognise-line';
import {
  changedSides,
  chooseWidenedRead,
  glyphAtEnds,
  glyphsBeyondBox,
  leadingOneIsSheetEdge,
  printedStroke,
  widenedReadCanGain,
} from './widened-read';

const W = 120;
const H = 60;
const SHEET = 230;
const INK = 30;

/** A light sheet with three digits (strokes on rows 20-40, inside the box) and whatever `draw` adds. */
function sheet(draw: (x: number, y: number) => number | null = () => null): Rgba {
  const data = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const digit = y >= 20 && y < 40 && [40, 55, 70].some((left) => x >= left && x < left + 5);
      const v = draw(x, y) ?? (digit ? INK : SHEET);
      data.set([v, v, v, 255], (y * W + x) * 4);
    }
  }
  return { data, width: W, height: H };
}

// The detector's box: rows 18-42, from x 30 (it ends inside a leading "1" at x 27-31) to 90.
const box = [
  [30, 18],
  [90, 18],
  [90, 42],
  [30, 42],
];
// The line read widened by 0.25 of its height on either side.
const widened = { x: 24, y: 18, width: 72, height: 24 };
const reading = (text: string): LineReading => ({ text, mean: 0.95, chars: [...text].map(() => 0.95) });

/** A "1": a stroke at the digits' height with the sheet on both sides. */
const leadingOne = (x: number, y: number) => (x >= 27 && x < 32 && y >= 20 && y < 40 ? INK : null);
/** The sheet ends at x 28: the shirt beyond it is dark over every row, to the photo's side. */
const sheetEdge = (x: number) => (x < 28 ? INK : null);
/** A straight dark line with the sheet on both sides that runs far above and below the digits (a fold, a frame). */
const longLine = (x: number) => (x >= 27 && x < 30 ? INK : null);

describe('glyphsBeyondBox (a digit beyond a line box, told from a sheet edge)', () => {
  it('finds a leading "1" the box cut, with ground on both sides at the digits\' height: a digit', () => {
    expect(glyphsBeyondBox(sheet(leadingOne), box, widened)).toEqual([
      { side: 'left', x0: 27, x1: 32, digit: true, stroke: true },
    ]);
  });

  it("finds the sheet's edge, with no ground beyond it: not a digit", () => {
    const [edge] = glyphsBeyondBox(sheet(sheetEdge), box, widened);
    expect(edge.digit).toBe(false);
  });

  it("finds a straight line running past the digits' top and bottom: not a digit", () => {
    expect(glyphsBeyondBox(sheet(longLine), box, widened)).toEqual([
      { side: 'left', x0: 27, x1: 30, digit: false, stroke: false },
    ]);
  });

  it('finds nothing beyond a box that holds all the digits', () => {
    expect(glyphsBeyondBox(sheet(), box, widened)).toEqual([]);
  });

  it("takes a glyph touching the photo's side for an edge (no ground seen beyond it)", () => {
    const atSide = (x: number, y: number) => (x < 4 && y >= 20 && y < 40 ? INK : null);
    const nearSide = [
      [6, 18],
      [90, 18],
      [90, 42],
      [6, 42],
    ];
    const [glyph] = glyphsBeyondBox(sheet(atSide), nearSide, { x: 0, y: 18, width: 96, height: 24 });
    expect(glyph).toMatchObject({ x0: 0, digit: false });
  });
});

describe('chooseWidenedRead', () => {
  it('takes the widened read when the digit it gained is a glyph (130 -> 1130)', () => {
    expect(chooseWidenedRead(reading('130'), reading('1130'), sheet(leadingOne), box, widened)?.text).toBe('1130');
  });

  it('keeps the read as cut when the widened one read the sheet edge as a "1" (478, not 1478)', () => {
    expect(chooseWidenedRead(reading('478'), reading('1478'), sheet(sheetEdge), box, widened)?.text).toBe('478');
    expect(chooseWidenedRead(reading('478'), reading('1478'), sheet(longLine), box, widened)?.text).toBe('478');
  });

  it('keeps the read as cut when the widened one differs with no ink beyond the box to explain it', () => {
    expect(chooseWidenedRead(reading('478'), reading('4780'), sheet(), box, widened)?.text).toBe('478');
  });

  it('reads the gained digit even when the box alone read nothing', () => {
    expect(chooseWidenedRead(undefined, reading('1130'), sheet(leadingOne), box, widened)?.text).toBe('1130');
    expect(chooseWidenedRead(undefined, reading('1478'), sheet(sheetEdge), box, widened)).toBeUndefined();
  });

  it('keeps the read as cut when both read the same', () => {
    const narrow = reading('478');
    expect(chooseWidenedRead(narrow, reading('478'), sheet(sheetEdge), box, widened)).toBe(narrow);
  });
});

describe('widenedReadCanGain (whether the widened read is worth making)', () => {
  const glyph = (digit: boolean, stroke: boolean) => ({ side: 'left' as const, x0: 0, x1: 4, digit, stroke });

  it('is true for a digit-shaped glyph beyond the box, and for a stroke only when strokes count as a "1"', () => {
    expect(widenedReadCanGain([glyph(false, false), glyph(true, false)])).toBe(true);
    expect(widenedReadCanGain([glyph(false, true)])).toBe(false);
    expect(widenedReadCanGain([glyph(false, true)], true)).toBe(true);
    expect(widenedReadCanGain([])).toBe(false);
  });
});

describe('changedSides (where a widened read differs from the read as cut)', () => {
  it('is the side of the digits gained, or of the first difference from either end', () => {
    expect(changedSides('130', '1130')).toEqual(['left']);
    expect(changedSides('82', '822')).toEqual(['right']);
    expect(changedSides('727', '1777')).toEqual(['left']);
    expect(changedSides('3', '33')).toEqual(['left', 'right']);
  });

  it('keeps the read as cut when a digit is gained on one side and the other side holds the edge', () => {
    // A "1" on the left (a digit) and the sheet's edge on the right: only the left counts for 130 -> 1130.
    const both = sheet((x, y) => leadingOne(x, y) ?? (x >= 96 ? INK : null));
    expect(chooseWidenedRead(reading('130'), reading('1130'), both, box, widened)?.text).toBe('1130');
    expect(chooseWidenedRead(reading('130'), reading('1301'), both, box, widened)?.text).toBe('130');
  });
});

describe('thin strokes (a thin "1" seen faintly on a dark or low-contrast line, or cut by the box)', () => {
  // A stroke a pixel or two wide keeps a share of the print's contrast: here 0.3 of it, under the midpoint's 0.5.
  const FAINT = SHEET - 0.3 * (SHEET - INK);
  const faintOne = (x: number, y: number) => (x >= 27 && x < 29 && y >= 20 && y < 40 ? FAINT : null);
  // The box's edge (x 30) falls on the stroke's ink (x 28-31).
  const cutOne = (x: number, y: number) => (x >= 28 && x < 32 && y >= 20 && y < 40 ? FAINT : null);

  it('takes the widened read whose faint leading "1" has ground on both sides (463 -> 1463)', () => {
    const image = sheet(faintOne);
    expect(chooseWidenedRead(reading('463'), reading('1463'), image, box, widened)?.text).toBe('463');
    expect(chooseWidenedRead(reading('463'), reading('1463'), image, box, widened, true)?.text).toBe('1463');
  });

  it("takes the widened read when the box's edge falls on the 1's ink (442 -> 1442)", () => {
    const image = sheet(cutOne);
    expect(chooseWidenedRead(reading('442'), reading('1442'), image, box, widened)?.text).toBe('442');
    expect(chooseWidenedRead(reading('442'), reading('1442'), image, box, widened, true)?.text).toBe('1442');
  });

  it("still refuses a sheet's edge and a line running past the digits, faint or dark", () => {
    const faintEdge = (x: number) => (x < 28 ? FAINT : null);
    const faintLine = (x: number) => (x >= 28 && x < 30 ? FAINT : null);
    for (const draw of [sheetEdge, longLine, faintEdge, faintLine])
      expect(chooseWidenedRead(reading('478'), reading('1478'), sheet(draw), box, widened, true)?.text).toBe('478');
  });

  it('keeps what the midpoint finds: a dark "1" whose faint surroundings join it to the shirt is still a digit', () => {
    // Faint ink (a shadow) from the photo's side to the 1: at the thin threshold the 1 joins it, at the midpoint not.
    const shadowed = sheet((x, y) => leadingOne(x, y) ?? (x < 27 ? FAINT : null));
    expect(chooseWidenedRead(reading('130'), reading('1130'), shadowed, box, widened)?.text).toBe('1130');
    expect(chooseWidenedRead(reading('130'), reading('1130'), shadowed, box, widened, true)?.text).toBe('1130');
  });
});

describe('a gained "1" as a stroke of the line\'s height (strokeOnes: rbnr-dark 442 -> 1442, 463 -> 1463)', () => {
  // The digits' upper halves blurred into the paper (between the midpoint and the paper): at the midpoint only their
  // lower halves are glyphs, so the digits' height the check takes is half the line's and a whole "1" is "too tall".
  const BLURRED = 150;
  const halfSeen = (x: number, y: number) =>
    y >= 20 && y < 30 && [40, 55, 70].some((left) => x >= left && x < left + 5) ? BLURRED : null;
  /** The sheet from row 17 to 41 and x 26 on, the shirt around it: a 1-pixel margin beside the "1". */
  const onNarrowSheet =
    (draw: (x: number, y: number) => number | null) =>
    (x: number, y: number): number | null =>
      draw(x, y) ?? (x < 26 || y < 17 || y > 41 ? INK : halfSeen(x, y));
  const thinOne = (x: number, y: number) => (x >= 27 && x < 30 && y >= 20 && y < 40 ? INK : null);
  const choose = (image: Rgba, wide = '1442', strokeOnes = true) =>
    chooseWidenedRead(reading('442'), reading(wide), image, box, widened, true, strokeOnes)?.text;

  it('keeps a thin "1" beside a narrow margin, ending in paper above and below: refused without the rule', () => {
    const image = sheet(onNarrowSheet(thinOne));
    expect(choose(image, '1442', false)).toBe('442');
    expect(choose(image)).toBe('1442');
  });

  it('keeps a "1" leaning a pixel every few rows (a rolled photo), followed across its rows', () => {
    const leaning = (x: number, y: number) => {
      const left = 27 + Math.floor((40 - y) / 7);
      return x >= left && x < left + 2 && y >= 20 && y < 40 ? INK : null;
    };
    expect(choose(sheet(onNarrowSheet(leaning)))).toBe('1442');
  });

  it("refuses the sheet's side, the shirt beyond it and a fold running past the line's rows", () => {
    const side = (x: number) => (x < 29 ? INK : null); // the shirt up to the digits' margin
    const fold = (x: number, y: number) => (x >= 27 && x < 29 && y >= 8 && y < 52 ? INK : null);
    for (const draw of [side, fold]) expect(choose(sheet((x, y) => draw(x, y) ?? halfSeen(x, y)))).toBe('442');
  });

  it('refuses a mark shorter than the line, one wider than a stroke, and a stroke joined to the shirt', () => {
    const short = (x: number, y: number) => (x >= 27 && x < 30 && y >= 26 && y < 34 ? INK : null);
    const wide = (x: number, y: number) => (x >= 22 && x < 30 && y >= 20 && y < 40 ? INK : null);
    const joined = (x: number, y: number) => (x >= 27 && x < 30 && y >= 20 ? INK : null); // on to the shirt below
    for (const draw of [short, joined]) expect(choose(sheet(onNarrowSheet(draw)))).toBe('442');
    expect(choose(sheet((x, y) => wide(x, y) ?? halfSeen(x, y)))).toBe('442');
  });

  it('takes a stroke for a "1" only: a gained 7 must be a digit\'s glyph', () => {
    expect(choose(sheet(onNarrowSheet(thinOne)), '7442')).toBe('442');
  });

  it("measures the stroke in the ink blob's bounds, ends exclusive", () => {
    const image = sheet(onNarrowSheet(thinOne));
    const line = { x0: 30, x1: 90, y0: 18, y1: 42 };
    const look = { x0: 6, x1: 114, y0: 0, y1: 60 };
    expect(printedStroke(image, { x0: 27, x1: 30, y0: 20, y1: 40 }, line, look, 130)).toBe(true);
    expect(printedStroke(image, { x0: 27, x1: 30, y0: 20, y1: 40 }, { ...line, y0: 4, y1: 56 }, look, 130)).toBe(false);
  });
});

describe('leadingOneIsSheetEdge (RBNR set1_69: "13628", the sheet\'s left side read as a "1")', () => {
  // A read of four characters, "1" and the sheet's three digits (x 40-75), in a box from x 24.
  const read = [
    [24, 18],
    [80, 18],
    [80, 42],
    [24, 42],
  ];

  it("finds the box starting on the shirt that runs on out of it: the sheet's edge", () => {
    const shirtToTheSheet = (x: number) => (x < 33 ? INK : null);
    expect(leadingOneIsSheetEdge(sheet(shirtToTheSheet), read, '1234')).toBe(true);
  });

  it('keeps a printed "1" with paper around it, and reads that do not start with a 1', () => {
    const one = (x: number, y: number) => (x >= 28 && x < 32 && y >= 20 && y < 40 ? INK : null);
    expect(leadingOneIsSheetEdge(sheet(one), read, '1234')).toBe(false);
    expect(
      leadingOneIsSheetEdge(
        sheet((x) => (x < 33 ? INK : null)),
        read,
        '7234',
      ),
    ).toBe(false);
    expect(
      leadingOneIsSheetEdge(
        sheet((x) => (x < 33 ? INK : null)),
        read,
        '12',
      ),
    ).toBe(false);
  });

  it('keeps a "1" whose box starts on the narrow paper margin beside the shirt (RBNR set1_88: 1442)', () => {
    const narrowMargin = (x: number, y: number) => (x < 30 ? INK : x >= 34 && x < 37 && y >= 20 && y < 40 ? INK : null);
    const tight = [
      [31, 18],
      [80, 18],
      [80, 42],
      [31, 42],
    ];
    expect(leadingOneIsSheetEdge(sheet(narrowMargin), tight, '1234')).toBe(false);
  });
});

describe("glyphAtEnds (a tilted read's number ends in paper on both sides)", () => {
  // A box holding the three digits (x 40-75) with a margin of 5 px; its height 24, a quarter of it 6 px.
  const whole = [
    [35, 18],
    [80, 18],
    [80, 42],
    [35, 42],
  ];
  const glyphAt = (left: number) => (x: number, y: number) =>
    x >= left && x < left + 5 && y >= 20 && y < 40 ? INK : null;

  it('finds a digit the box left out just beside its first or last digit (979 read as 79)', () => {
    expect(glyphAtEnds(sheet(glyphAt(26)), whole, 0.25)).toBe(true);
    expect(glyphAtEnds(sheet(glyphAt(84)), whole, 0.25)).toBe(true);
  });

  it('finds nothing where paper goes on beyond both ends, or the glyph lies beyond a quarter of its height', () => {
    expect(glyphAtEnds(sheet(), whole, 0.25)).toBe(false);
    expect(glyphAtEnds(sheet(glyphAt(22)), whole, 0.25)).toBe(false);
    expect(glyphAtEnds(sheet(glyphAt(22)), whole, 0.5)).toBe(true);
  });

  it("takes the shirt beyond the sheet's edge, wider than a digit, for the sheet's surroundings", () => {
    const shirtFrom = (x: number) => (x < 28 ? INK : null);
    const wide = [
      [35, 18],
      [110, 18],
      [110, 42],
      [35, 42],
    ];
    expect(glyphAtEnds(sheet(shirtFrom), wide, 0.5)).toBe(false);
  });
});
