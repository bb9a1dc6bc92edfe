import type { BoxGeometry } from './extract';
import { groundReach } from './ground-reach';

/** Decoded pixels, 4 bytes (RGBA) per pixel. */
export interface Rgba {
  data: Uint8Array | Buffer;
  width: number;
  height: number;
}

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
 * box (10th and 90th percentiles: the darkest and lightest of text and patch) and of a thin strip
 * around it (median: the patch itself).
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
  const w = x1 - x0;
  const h = y1 - y0;
  if (w * h > 400_000) return []; // a box this large is no bib number; not worth the pass
  const label = new Int32Array(w * h).fill(-1);
  const ink = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = ((y0 + y) * image.width + x0 + x) * 4;
      ink[y * w + x] = 0.299 * image.data[i] + 0.587 * image.data[i + 1] + 0.114 * image.data[i + 2] < threshold ? 1 : 0;
    }
  }
  const blobs: Array<{ left: number; height: number }> = [];
  const stack: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (!ink[start] || label[start] >= 0) continue;
    let top = h;
    let bottom = -1;
    let left = w;
    label[start] = blobs.length;
    stack.push(start);
    while (stack.length) {
      const p = stack.pop()!;
      const px = p % w;
      const py = (p - px) / w;
      top = Math.min(top, py);
      bottom = Math.max(bottom, py);
      left = Math.min(left, px);
      for (const q of [px > 0 ? p - 1 : -1, px < w - 1 ? p + 1 : -1, py > 0 ? p - w : -1, py < h - 1 ? p + w : -1]) {
        if (q >= 0 && ink[q] && label[q] < 0) {
          label[q] = blobs.length;
          stack.push(q);
        }
      }
    }
    blobs.push({ left, height: bottom - top + 1 });
  }
  return blobs
    .filter((b) => b.height > h / 3)
    .sort((a, b) => a.left - b.left)
    .map((b) => b.height);
}

function percentile(values: number[], q: number): number {
  if (!values.length) return 0;
  const sorted = Float64Array.from(values).sort();
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
}

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));
