import { inkBlobs, Rgba } from './box-geometry';
import type { LineReading } from './recognise-line';
import type { Region } from './text-crops';

/** How far beside and above/below a line's box (share of its height) a glyph's ground is looked for. */
const LOOK_BEYOND = 1;
/** A glyph is at the digits' height when its top and bottom are within this share of it of the digits'. */
const HEIGHT_SLACK = 0.2;
/** A digit is narrower than it is tall; a blob wider than this share of the digits' height is no digit. */
const MAX_GLYPH_WIDTH = 0.9;
/** A glyph crosses the line's middle rows (a box's top and bottom may hold the shirt around the sheet). */
const MIDDLE_ROWS = 0.6;
/**
 * A stroke a pixel or two wide (a thin "1") is blurred into the paper beside it and seen at a share of the print's
 * contrast: with `thinStrokes`, a gained glyph is ink darker than the paper by this share of the print's range.
 */
const THIN_STROKE_CONTRAST = 0.25;
/** With `thinStrokes`, a glyph the box's edge cuts (its centre this share of the height inside) still counts as beyond it. */
const EDGE_ON_INK = 0.15;

/** A printed "1" ends in paper within this share of its line's height beyond the line's top and bottom rows. */
const STROKE_ENDS_WITHIN = 0.25;
/** A digit's stroke is at most this share of its line's height wide (on most of its rows): wider is a body or a shirt. */
const STROKE_WIDTH = 0.3;

/**
 * A leading "1" is a sheet's edge when the dark on its rows runs on beyond the line's box by this share of its height:
 * a printed digit has paper around it, the shirt beside a sheet does not end within a stroke's width.
 */
const SHEET_EDGE_REACH = 0.5;

/** An axis-aligned rectangle, end exclusive. */
interface Bounds {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * The read of a line widened on either side (paddedLineRegion) or as the detector cut it. A widened read
 * that differs is kept only when the glyph it gained beyond the box, on each side where its text changed, is
 * a digit: ink with ground all around it, at the digits' height. A sheet's edge is not one: the dark beyond
 * it runs on to the end of the look (no ground beyond it), or it runs past the digits' top or bottom.
 * `box` and `region` are in `image`'s pixels.
 */
export function chooseWidenedRead(
  narrow: LineReading | undefined,
  wide: LineReading | undefined,
  image: Rgba,
  box: number[][],
  region: Region,
  thinStrokes = false,
  strokeOnes = false,
  glyphs?: GainedGlyph[],
): LineReading | undefined {
  if (!wide || wide.text === narrow?.text) return narrow;
  glyphs ??= glyphsBeyondBox(image, box, region, thinStrokes);
  // With nothing read as cut, every glyph beyond the box is what the widening gained.
  const sides = narrow ? changedSides(narrow.text, wide.text) : [...new Set(glyphs.map((g) => g.side))];
  // A "1" gained on a side may be a stroke of the line's height ending in paper (printedStroke), not a digit's body.
  const one = (side: 'left' | 'right') =>
    strokeOnes && narrow && wide.text === (side === 'left' ? `1${narrow.text}` : `${narrow.text}1`);
  const gained = (side: 'left' | 'right') =>
    widenedReadCanGain(
      glyphs.filter((g) => g.side === side),
      one(side),
    );
  if (!sides.length || sides.some((side) => !gained(side))) return narrow;
  return wide;
}

/**
 * Whether a widened read can be kept over the read as cut (`chooseWidenedRead`): only for a glyph beyond the box shaped
 * as a digit, or as a printed "1"'s stroke with `strokeOnes`. Without one, the widened read need not be made.
 */
export function widenedReadCanGain(glyphs: GainedGlyph[], strokeOnes = false): boolean {
  return glyphs.some((g) => g.digit || (strokeOnes && g.stroke));
}

/**
 * Whether a read's leading "1" is the edge of the sheet, not a digit: the line's box starts on dark that runs on,
 * unbroken on the line's middle rows, half its height out of the box (the shirt beyond the sheet's side, whose
 * edge is read as a stroke). A printed "1" has paper beside it, however close the sheet's side or frame.
 * `box` is in `image`'s pixels.
 */
export function leadingOneIsSheetEdge(image: Rgba, box: number[][], text: string): boolean {
  if (!startsWithOne(text)) return false;
  const line = boundsOf(box, image);
  const h = line.y1 - line.y0;
  const from = Math.floor(line.x0 - SHEET_EDGE_REACH * h);
  const to = line.x0 + 1;
  if (h < 3 || from < 0) return false; // the photo's side: what lies beyond is not seen
  const { ink, paper } = printLevels(image, line);
  const y0 = line.y0 + Math.floor(((1 - MIDDLE_ROWS) / 2) * h);
  const y1 = line.y1 - Math.floor(((1 - MIDDLE_ROWS) / 2) * h);
  for (let x = from; x < to; x++) {
    const column: number[] = [];
    for (let y = y0; y < y1; y++) column.push(luminanceAt(image, (y * image.width + x) * 4));
    if (median(column) >= (ink + paper) / 2) return false;
  }
  return true;
}

/** A number of three digits or more led by a "1", the read `leadingOneIsSheetEdge` weighs. */
export const startsWithOne = (text: string): boolean => /^1\d{2,}$/.test(text);

/** The ends of a line's text a widened read changed: where it differs from the read as cut. */
export function changedSides(narrow: string, wide: string): Array<'left' | 'right'> {
  const [starts, ends] = [wide.startsWith(narrow), wide.endsWith(narrow)];
  if (ends && !starts) return ['left'];
  if (starts && !ends) return ['right'];
  let [prefix, suffix] = [0, 0];
  while (prefix < Math.min(narrow.length, wide.length) && narrow[prefix] === wide[prefix]) prefix++;
  while (suffix < Math.min(narrow.length, wide.length) && narrow.at(-1 - suffix) === wide.at(-1 - suffix)) suffix++;
  if (prefix < suffix) return ['left'];
  if (suffix < prefix) return ['right'];
  return ['left', 'right'];
}

/** The ink glyph nearest a line's box on one side, mostly beyond it, and whether it is shaped as a digit is. */
export interface GainedGlyph {
  side: 'left' | 'right';
  x0: number;
  x1: number;
  digit: boolean;
  /**
   * Whether it is a stroke of the line's height (a printed "1"): followed up and down, it ends in paper within a
   * quarter of the line's height of the line's top and bottom rows, and it is no wider than a digit's stroke. A
   * sheet's side, a fold or the shirt beyond the sheet runs on.
   */
  stroke: boolean;
}

/**
 * On each side of the box, the ink blob nearest it that lies mostly beyond it, within the widened `region`
 * and across the line's middle rows, judged as a digit or not. Ink is darker than the midpoint of the box's
 * darkest and lightest tenths (a bib is dark print on a lighter patch: the print gate passed it). With
 * `thinStrokes`, each side's nearest glyph is also looked for as ink darker than the paper by `THIN_STROKE_CONTRAST`
 * of the print's range (the digits' heights still taken at the midpoint), a glyph the box's edge falls on counting
 * as beyond it: a side holds a digit when either glyph is one.
 */
export function glyphsBeyondBox(image: Rgba, box: number[][], region: Region, thinStrokes = false): GainedGlyph[] {
  const line = boundsOf(box, image);
  const h = line.y1 - line.y0;
  if (h < 3 || line.x1 - line.x0 < 3) return [];
  const look: Bounds = {
    x0: Math.max(0, Math.floor(line.x0 - LOOK_BEYOND * h)),
    x1: Math.min(image.width, Math.ceil(line.x1 + LOOK_BEYOND * h)),
    y0: Math.max(0, Math.floor(line.y0 - LOOK_BEYOND * h)),
    y1: Math.min(image.height, Math.ceil(line.y1 + LOOK_BEYOND * h)),
  };
  const { ink, paper } = printLevels(image, line);
  const middle = {
    y0: line.y0 + Math.floor(((1 - MIDDLE_ROWS) / 2) * h),
    y1: line.y1 - Math.floor(((1 - MIDDLE_ROWS) / 2) * h),
  };
  const blobsUnder = (threshold: number) =>
    inkBlobs(image, look.x0, look.y0, look.x1, look.y1, (i) => luminanceAt(image, i) < threshold)
      .map((b) => ({
        x0: b.left + look.x0,
        x1: b.right + look.x0,
        y0: b.top + look.y0,
        y1: b.bottom + look.y0,
        border: b.border,
        threshold,
      }))
      .filter((b) => b.y0 < middle.y1 && b.y1 > middle.y0);
  const digitBlobs = blobsUnder((ink + paper) / 2);
  const inside = digitBlobs.filter((b) => !b.border && b.x0 >= line.x0 && b.x1 <= line.x1 && b.y1 - b.y0 >= h / 3);
  const digits =
    inside.length > 0
      ? { y0: median(inside.map((b) => b.y0)), y1: median(inside.map((b) => b.y1)) }
      : { y0: line.y0, y1: line.y1 };
  const digitHeight = Math.max(1, digits.y1 - digits.y0);
  const slack = HEIGHT_SLACK * digitHeight;
  type Blob = (typeof digitBlobs)[number];
  const inRead = (b: Blob) => b.x1 > region.x && b.x0 < region.x + region.width;
  const centre = (b: Blob) => (b.x0 + b.x1) / 2;
  /** Each side's nearest blob beyond the box; `edgeOnInk`: how far inside its centre may lie when the edge cuts it. */
  const nearest = (blobs: Blob[], edgeOnInk: number): GainedGlyph[] => {
    // A stroke the edge falls on reaches at most this far inside the box: further, it is the read's own first digit.
    const cutReach = 2 * edgeOnInk;
    const judge = (side: 'left' | 'right', b: Blob): GainedGlyph => {
      const beyond =
        !b.border &&
        (side === 'left' ? b.x1 <= line.x0 + cutReach || !edgeOnInk : b.x0 >= line.x1 - cutReach || !edgeOnInk);
      return {
        side,
        x0: b.x0,
        x1: b.x1,
        digit:
          beyond &&
          b.x1 - b.x0 <= MAX_GLYPH_WIDTH * digitHeight &&
          b.y0 >= digits.y0 - slack &&
          b.y1 <= digits.y1 + slack &&
          b.y1 - b.y0 >= digitHeight / 2,
        stroke: beyond && printedStroke(image, b, line, look, b.threshold),
      };
    };
    const left = blobs
      .filter((b) => b.x0 < line.x0 && centre(b) < line.x0 + edgeOnInk && inRead(b))
      .sort((a, b) => b.x1 - a.x1)[0];
    const right = blobs
      .filter((b) => b.x1 > line.x1 && centre(b) > line.x1 - edgeOnInk && inRead(b))
      .sort((a, b) => a.x0 - b.x0)[0];
    return [...(left ? [judge('left', left)] : []), ...(right ? [judge('right', right)] : [])];
  };
  return [
    ...nearest(digitBlobs, 0),
    ...(thinStrokes ? nearest(blobsUnder(paper - THIN_STROKE_CONTRAST * (paper - ink)), EDGE_ON_INK * h) : []),
  ];
}

/**
 * Whether the ink of `glyph` (bounds, ends exclusive) is a stroke of `line`'s height: followed up and down from the
 * glyph, row by row (a slanted stroke moves a pixel a row), its ink ends in paper within `STROKE_ENDS_WITHIN` of the
 * line's top and bottom rows and reaches that near them, no wider than `STROKE_WIDTH` on most rows. A sheet's side, a
 * fold or the shirt beyond the sheet runs on past the line's rows (to the look's end: no paper seen beyond it).
 */
export function printedStroke(image: Rgba, glyph: Bounds, line: Bounds, look: Bounds, threshold: number): boolean {
  const h = line.y1 - line.y0;
  const reach = STROKE_ENDS_WITHIN * h;
  const [top, bottom] = [line.y0, line.y1 - 1];
  const inkAt = (x: number, y: number) => luminanceAt(image, (y * image.width + x) * 4) < threshold;
  /** The ink in row `y` touching columns x0-x1 (a pixel either side), extended to its whole runs; null: none. */
  const runAt = (y: number, x0: number, x1: number): [number, number] | null => {
    let [from, to] = [Infinity, -Infinity];
    for (let x = Math.max(look.x0, x0 - 1); x <= Math.min(look.x1 - 1, x1 + 1); x++)
      if (inkAt(x, y)) [from, to] = [Math.min(from, x), Math.max(to, x)];
    if (from > to) return null;
    while (from > look.x0 && inkAt(from - 1, y)) from--;
    while (to < look.x1 - 1 && inkAt(to + 1, y)) to++;
    return [from, to];
  };
  // On the glyph's own rows, its ink within its bounds (a neighbouring digit may touch it on a row or two).
  const widths: number[] = [];
  for (let y = glyph.y0; y < glyph.y1; y++) {
    let ink = 0;
    for (let x = glyph.x0; x < glyph.x1; x++) if (inkAt(x, y)) ink++;
    widths.push(ink);
  }
  // Followed beyond the glyph's rows: a stroke broken by a blurred pixel, or running on into the sheet's surroundings.
  const follow = (from: number, step: 1 | -1): number | null => {
    // The glyph's own ink on its end row: the blob is 4-connected, nothing beside it joins it there.
    const own = [...Array(glyph.x1 - glyph.x0).keys()].map((i) => glyph.x0 + i).filter((x) => inkAt(x, from));
    let run: [number, number] = own.length ? [own[0], own[own.length - 1]] : [glyph.x0, glyph.x1 - 1];
    let y = from + step;
    for (; y >= look.y0 && y < look.y1; y += step) {
      const next = runAt(y, run[0], run[1]);
      if (!next) return y - step;
      widths.push(next[1] - next[0] + 1);
      run = next;
    }
    return null; // ink to the end of the look: no paper seen beyond it
  };
  const [first, last] = [follow(glyph.y0, -1), follow(glyph.y1 - 1, 1)];
  if (first === null || last === null) return false;
  const ends = first >= top - reach && last <= bottom + reach;
  const lineHigh = first <= top + reach && last >= bottom - reach;
  return ends && lineHigh && median(widths) <= STROKE_WIDTH * h;
}

/** A digit is narrower than its line is tall; a levelled cut smears it by a pixel or two on either side. */
const END_GLYPH_WIDTH = 1.2;

/**
 * Whether a level box's number does not end in paper: a glyph lies beside its first or last one, within `beyond`
 * (its share of the box's height) of the box, on the box's rows: ink darker than the midpoint of the box's ink and
 * paper, at least half the box's height, no wider than a digit, with paper beyond it within a line height of the box (a
 * digit the box left out, an arm's edge over the sheet); ink running on further is the sheet's surroundings.
 */
export function glyphAtEnds(image: Rgba, box: number[][], beyond: number): boolean {
  const line = boundsOf(box, image);
  const h = line.y1 - line.y0;
  if (h < 3 || line.x1 - line.x0 < 3) return false;
  const { ink, paper } = printLevels(image, line);
  const [x0, x1] = [Math.max(0, Math.floor(line.x0 - h)), Math.min(image.width, Math.ceil(line.x1 + h))];
  const blobs = inkBlobs(image, x0, line.y0, x1, line.y1, (i) => luminanceAt(image, i) < (ink + paper) / 2);
  const reach = beyond * h;
  return blobs.some((b) => {
    const [left, right] = [x0 + b.left, x0 + b.right + 1];
    const glyph = b.bottom - b.top + 1 >= h / 2 && right - left <= END_GLYPH_WIDTH * h;
    const beforeIt = (left + right) / 2 < line.x0 && right >= line.x0 - reach && b.left > 0;
    const afterIt = (left + right) / 2 > line.x1 && left <= line.x1 + reach && x0 + b.right < x1 - 1;
    return glyph && (beforeIt || afterIt);
  });
}

/** The box's darkest and lightest tenths: its ink and its paper. */
function printLevels(image: Rgba, line: Bounds): { ink: number; paper: number } {
  const values: number[] = [];
  for (let y = line.y0; y < line.y1; y++)
    for (let x = line.x0; x < line.x1; x++) values.push(luminanceAt(image, (y * image.width + x) * 4));
  values.sort((a, b) => a - b);
  const at = (q: number) => values[Math.min(values.length - 1, Math.floor(q * values.length))];
  return { ink: at(0.1), paper: at(0.9) };
}

function boundsOf(box: number[][], image: Rgba): Bounds {
  const xs = box.map((p) => p[0]);
  const ys = box.map((p) => p[1]);
  return {
    x0: Math.max(0, Math.floor(Math.min(...xs))),
    x1: Math.min(image.width, Math.ceil(Math.max(...xs))),
    y0: Math.max(0, Math.floor(Math.min(...ys))),
    y1: Math.min(image.height, Math.ceil(Math.max(...ys))),
  };
}

const luminanceAt = (image: Rgba, i: number) =>
  0.299 * image.data[i] + 0.587 * image.data[i + 1] + 0.114 * image.data[i + 2];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
