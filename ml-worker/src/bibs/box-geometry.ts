import type { BoxGeometry } from './extract';
import { groundColour, groundReach } from './ground-reach';

/** Decoded pixels, 4 bytes (RGBA) per pixel. */
export interface Rgba {
  data: Uint8Array | Buffer;
  width: number;
  height: number;
}

/** The inner margin (share of the box's height) where numberCorners does not look for digits. */
const INK_INSET = 0.08;

/** The digits found must span this share of the box's width to replace it (the number fills its line). */
const MIN_INK_WIDTH = 0.6;

/** Strip around a text box, as a share of its height, where the patch the text is printed on shows. */
const SURROUND = 0.2;

/**
 * Where a text box is and what it is printed on (printGeometry), with the heights of its glyphs
 * (withGlyphs). `corners` are the detector's four points.
 */
export function boxGeometry(image: Rgba, corners: number[][]): BoxGeometry {
  return withGlyphs(image, printGeometry(image, corners));
}

/**
 * What the print and torso gates need, cheap: the box's axis-aligned bounds and the luminance of the
 * box (10th and 90th percentiles: the darkest and lightest of text and patch; median: the ground
 * between the strokes) and of a thin strip around it (median: the patch itself).
 */
export function printGeometry(image: Rgba, corners: number[][]): BoxGeometry {
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  const x0 = clamp(Math.floor(Math.min(...xs)), 0, image.width - 1);
  const x1 = clamp(Math.ceil(Math.max(...xs)), x0 + 1, image.width);
  const y0 = clamp(Math.floor(Math.min(...ys)), 0, image.height - 1);
  const y1 = clamp(Math.ceil(Math.max(...ys)), y0 + 1, image.height);
  const margin = Math.max(2, Math.round((y1 - y0) * SURROUND));
  const inside: number[] = [];
  const around: number[] = [];
  const ox0 = Math.max(0, x0 - margin);
  const ox1 = Math.min(image.width, x1 + margin);
  const oy0 = Math.max(0, y0 - margin);
  const oy1 = Math.min(image.height, y1 + margin);
  // Every second pixel is plenty for percentiles and keeps this cheap on large boxes.
  for (let y = oy0; y < oy1; y += 2) {
    for (let x = ox0; x < ox1; x += 2) {
      const i = (y * image.width + x) * 4;
      const luminance = 0.299 * image.data[i] + 0.587 * image.data[i + 1] + 0.114 * image.data[i + 2];
      (x >= x0 && x < x1 && y >= y0 && y < y1 ? inside : around).push(luminance);
    }
  }
  const dark = percentile(inside, 0.1);
  const light = percentile(inside, 0.9);
  return {
    x: x0,
    y: y0,
    width: x1 - x0,
    height: y1 - y0,
    imageWidth: image.width,
    imageHeight: image.height,
    surround: percentile(around.length ? around : inside, 0.5),
    inner: percentile(inside, 0.5),
    dark,
    light,
  };
}

/**
 * What the bib score weighs of a number's box: its glyph heights and how far its ground reaches
 * (passes over the box's pixels and scan lines around it, so only for boxes that read as a number).
 */
export function numberGeometry(image: Rgba, g: BoxGeometry): BoxGeometry {
  const glyphs = withGlyphs(image, g);
  return { ...glyphs, groundReach: groundReach(image, g) };
}

/** The geometry with its glyph heights: a pass over every pixel of the box, so only for boxes that passed the gates and were read. */
export function withGlyphs(image: Rgba, g: BoxGeometry): BoxGeometry {
  return { ...g, glyphHeights: glyphHeights(image, g.x, g.y, g.x + g.width, g.y + g.height, (g.dark + g.light) / 2) };
}

/**
 * The heights of the dark blobs inside a box (4-connected pixels darker than `threshold`) that
 * are glyph-sized, taller than a third of the box, ordered left to right: a bib's digits are
 * one blob each, all about as tall.
 */
export function glyphHeights(image: Rgba, x0: number, y0: number, x1: number, y1: number, threshold: number): number[] {
  const h = y1 - y0;
  return inkBlobs(image, x0, y0, x1, y1, (i) => luminance(image, i) < threshold)
    .filter((b) => b.bottom - b.top > h / 3)
    .map((b) => b.bottom - b.top);
}

/** A dark blob inside a box: its bounds (pixels of the box, end exclusive) and whether it reaches the box's border. */
export interface InkBlob {
  left: number;
  top: number;
  right: number;
  bottom: number;
  border: boolean;
}

/** The 4-connected blobs of ink (`isInk` of a pixel's byte offset) inside a box, left to right (none on a box too large to be a number). */
export function inkBlobs(
  image: Rgba,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  isInk: (offset: number) => boolean,
): InkBlob[] {
  const w = x1 - x0;
  const h = y1 - y0;
  if (w <= 0 || h <= 0 || w * h > 400_000) return []; // a box this large is no bib number; not worth the pass
  const label = new Int32Array(w * h).fill(-1);
  const ink = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      ink[y * w + x] = isInk(((y0 + y) * image.width + x0 + x) * 4) ? 1 : 0;
    }
  }
  const blobs: InkBlob[] = [];
  const stack: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (!ink[start] || label[start] >= 0) continue;
    const blob = { left: w, top: h, right: -1, bottom: -1, border: false };
    label[start] = blobs.length;
    stack.push(start);
    while (stack.length) {
      const p = stack.pop()!;
      const px = p % w;
      const py = (p - px) / w;
      blob.top = Math.min(blob.top, py);
      blob.bottom = Math.max(blob.bottom, py);
      blob.left = Math.min(blob.left, px);
      blob.right = Math.max(blob.right, px);
      for (const q of [px > 0 ? p - 1 : -1, px < w - 1 ? p + 1 : -1, py > 0 ? p - w : -1, py < h - 1 ? p + w : -1]) {
        if (q >= 0 && ink[q] && label[q] < 0) {
          label[q] = blobs.length;
          stack.push(q);
        }
      }
    }
    blob.border = blob.left === 0 || blob.top === 0 || blob.right === w - 1 || blob.bottom === h - 1;
    blobs.push({ ...blob, right: blob.right + 1, bottom: blob.bottom + 1 });
  }
  return blobs.sort((a, b) => a.left - b.left);
}

/**
 * The corners of the number inside a detected text box. On a small bib the detector's box is the
 * whole light patch (the number, its sponsor line and the shirt at the corners), so the print
 * rules would weigh the shirt as the patch. The number is the ink blobs inside the box (pixels far
 * from the patch's colour in any channel: black, red or blue print alike) that do not reach its
 * border, at least half as tall as the tallest of them; their bounds are the number's box (its
 * width stays the box's when they span only part of it: a digit or two of a fainter print). A box already tight around its digits (they reach its border) is
 * kept as it is.
 */
export function numberCorners(image: Rgba, corners: number[][]): number[][] {
  const g = printGeometry(image, corners);
  const patch = groundColour(image, g);
  const d = image.data;
  let far = 0;
  for (let y = g.y; y < g.y + g.height; y += 2) {
    for (let x = g.x; x < g.x + g.width; x += 2) far = Math.max(far, colourStep(d, (y * image.width + x) * 4, patch));
  }
  const isInk = (i: number) => colourStep(d, i, patch) > far / 2;
  // Inset a little: on a tilted patch the shirt shows in the box's corners, touching the digits.
  const inset = Math.max(1, Math.round(INK_INSET * g.height));
  const [bx, by, bw, bh] = [g.x + inset, g.y + inset, g.width - 2 * inset, g.height - 2 * inset];
  if (bw < 4 || bh < 4) return corners;
  const blobs = inkBlobs(image, bx, by, bx + bw, by + bh, isInk).filter((b) => !b.border && b.bottom - b.top >= 3);
  const tallest = Math.max(0, ...blobs.map((b) => b.bottom - b.top));
  const glyphs = blobs.filter((b) => b.bottom - b.top >= tallest / 2);
  if (!glyphs.length || tallest > 0.8 * g.height) return corners;
  let x0 = bx + Math.min(...glyphs.map((b) => b.left));
  let x1 = bx + Math.max(...glyphs.map((b) => b.right));
  // A digit or two of a faint print, not the whole number: its line's height, the box's width.
  if (x1 - x0 < MIN_INK_WIDTH * g.width) [x0, x1] = [g.x, g.x + g.width];
  const y0 = by + Math.min(...glyphs.map((b) => b.top));
  const y1 = by + Math.max(...glyphs.map((b) => b.bottom));
  return [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
  ];
}

const luminance = (image: Rgba, i: number) =>
  0.299 * image.data[i] + 0.587 * image.data[i + 1] + 0.114 * image.data[i + 2];

/** The largest difference of one colour channel between pixel `i` and `colour`. */
const colourStep = (d: Rgba['data'], i: number, colour: number[]) =>
  Math.max(Math.abs(d[i] - colour[0]), Math.abs(d[i + 1] - colour[1]), Math.abs(d[i + 2] - colour[2]));

function percentile(values: number[], q: number): number {
  if (!values.length) return 0;
  const sorted = Float64Array.from(values).sort();
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
}

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));
