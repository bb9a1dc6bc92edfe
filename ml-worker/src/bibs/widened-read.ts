import type { Rgba } from './box-geometry';
import type { LineReading } from './recognise-line';
import type { Region } from './text-crops';

/** How far beside and above/below a line's box (share of its height) a glyph's ground is looked for. */
const LOOK_BEYOND = 0.6;
/** A glyph is at the digits' height when its ink ends within this share of their height of theirs. */
const HEIGHT_SLACK = 0.2;
/** A digit is narrower than it is tall; an ink run wider than this share of the digits' height is no digit. */
const MAX_GLYPH_WIDTH = 0.9;
/** A column holds ink when at least this share of the line's rows (and one pixel) is ink. */
const COLUMN_INK = 0.08;
/** Columns are weighed over the line's middle rows: a box's top and bottom may hold the shirt around the sheet. */
const MIDDLE_ROWS = 0.6;

/** An axis-aligned rectangle, end exclusive. */
interface Bounds {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * The read of a line widened on either side (paddedLineRegion) or as the detector cut it. A widened read
 * that differs is kept only when every ink glyph it gained beyond the box is a digit: a stroke with ground on
 * both sides, at the digits' height. A sheet's edge is not one: its dark beyond runs to the look's end (no
 * ground beyond it), or it runs past the digits' top or bottom. `box` and `region` are in `image`'s pixels.
 */
export function chooseWidenedRead(
  narrow: LineReading | undefined,
  wide: LineReading | undefined,
  image: Rgba,
  box: number[][],
  region: Region,
): LineReading | undefined {
  if (!wide || wide.text === narrow?.text) return narrow;
  const gained = glyphsBeyondBox(image, box, region);
  if (!gained.length || gained.some((g) => !g.digit)) return narrow;
  return wide;
}

/** An ink glyph of a line that reaches beyond its box, and whether it is shaped as a digit is. */
export interface GainedGlyph {
  x0: number;
  x1: number;
  digit: boolean;
}

/**
 * The ink glyphs (runs of ink columns over the line's rows) that reach beyond the box's left or right side
 * within the widened `region`, each judged as a digit or not. Ink is darker than the midpoint of the box's
 * darkest and lightest tenths (a bib is dark print on a lighter patch: the print gate passed it).
 */
export function glyphsBeyondBox(image: Rgba, box: number[][], region: Region): GainedGlyph[] {
  const line = boundsOf(box, image);
  const h = line.y1 - line.y0;
  if (h < 3 || line.x1 - line.x0 < 3) return [];
  const look: Bounds = {
    x0: Math.max(0, Math.floor(line.x0 - LOOK_BEYOND * h)),
    x1: Math.min(image.width, Math.ceil(line.x1 + LOOK_BEYOND * h)),
    y0: Math.max(0, Math.floor(line.y0 - LOOK_BEYOND * h)),
    y1: Math.min(image.height, Math.ceil(line.y1 + LOOK_BEYOND * h)),
  };
  const threshold = inkThreshold(image, line);
  const isInk = (x: number, y: number) => luminance(image, x, y) < threshold;
  const runs = inkRuns(look, line, isInk);
  const inside = runs.filter((r) => r.x0 >= line.x0 && r.x1 <= line.x1);
  const extents = inside.map((r) => verticalExtent(r, look, line, isInk)).filter((e) => e !== null);
  const digits =
    extents.length > 0
      ? { y0: median(extents.map((e) => e.y0)), y1: median(extents.map((e) => e.y1)) }
      : { y0: line.y0, y1: line.y1 };
  const digitHeight = Math.max(1, digits.y1 - digits.y0);
  const read = { x0: region.x, x1: region.x + region.width };
  return runs
    .filter((r) => (r.x0 < line.x0 || r.x1 > line.x1) && r.x1 > read.x0 && r.x0 < read.x1)
    .map((r) => {
      const extent = verticalExtent(r, look, line, isInk);
      const groundBeside = r.x0 > look.x0 && r.x1 < look.x1;
      const narrow = r.x1 - r.x0 <= MAX_GLYPH_WIDTH * digitHeight;
      const slack = HEIGHT_SLACK * digitHeight;
      const atDigitsHeight =
        extent !== null &&
        extent.y0 > look.y0 &&
        extent.y1 < look.y1 &&
        extent.y0 >= digits.y0 - slack &&
        extent.y1 <= digits.y1 + slack &&
        extent.y1 - extent.y0 >= digitHeight / 2;
      return { x0: r.x0, x1: r.x1, digit: groundBeside && narrow && atDigitsHeight };
    });
}

/** Maximal runs of columns of `look` holding ink over the line's rows. */
function inkRuns(
  look: Bounds,
  line: Bounds,
  isInk: (x: number, y: number) => boolean,
): Array<{ x0: number; x1: number }> {
  const h = line.y1 - line.y0;
  const minInk = Math.max(1, Math.round(COLUMN_INK * h));
  const [y0, y1] = [
    line.y0 + Math.floor(((1 - MIDDLE_ROWS) / 2) * h),
    line.y1 - Math.floor(((1 - MIDDLE_ROWS) / 2) * h),
  ];
  const runs: Array<{ x0: number; x1: number }> = [];
  let start = -1;
  for (let x = look.x0; x <= look.x1; x++) {
    let ink = 0;
    if (x < look.x1) for (let y = y0; y < y1 && ink < minInk; y++) if (isInk(x, y)) ink++;
    if (ink >= minInk && start < 0) start = x;
    if (ink < minInk && start >= 0) {
      runs.push({ x0: start, x1: x });
      start = -1;
    }
  }
  return runs;
}

/**
 * The rows a glyph's ink spans within `look`: the run of rows with ink in its columns that holds the most of
 * the line's rows (a stroke continuing above or below the line, as an edge does, is followed to its end).
 */
function verticalExtent(
  run: { x0: number; x1: number },
  look: Bounds,
  line: Bounds,
  isInk: (x: number, y: number) => boolean,
): { y0: number; y1: number } | null {
  let best: { y0: number; y1: number; overlap: number } | null = null;
  let start = -1;
  for (let y = look.y0; y <= look.y1; y++) {
    let ink = false;
    if (y < look.y1) for (let x = run.x0; x < run.x1 && !ink; x++) ink = isInk(x, y);
    if (ink && start < 0) start = y;
    if (!ink && start >= 0) {
      const overlap = Math.min(y, line.y1) - Math.max(start, line.y0);
      if (overlap > 0 && (!best || overlap > best.overlap)) best = { y0: start, y1: y, overlap };
      start = -1;
    }
  }
  return best && { y0: best.y0, y1: best.y1 };
}

function inkThreshold(image: Rgba, line: Bounds): number {
  const values: number[] = [];
  for (let y = line.y0; y < line.y1; y++) for (let x = line.x0; x < line.x1; x++) values.push(luminance(image, x, y));
  values.sort((a, b) => a - b);
  const at = (q: number) => values[Math.min(values.length - 1, Math.floor(q * values.length))];
  return (at(0.1) + at(0.9)) / 2;
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

const luminance = (image: Rgba, x: number, y: number) => {
  const i = (y * image.width + x) * 4;
  return 0.299 * image.data[i] + 0.587 * image.data[i + 1] + 0.114 * image.data[i + 2];
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
