import { FaceBox } from './face-tracks';

/** A face's look is its box cut into GRID x GRID cells, each the mean brightness of SAMPLES x SAMPLES points. */
const GRID = 8;
const SAMPLES = 4;
/**
 * Two looks are the same face, unchanged, when their cells (brightness and contrast taken out) differ
 * by less than this on average, in standard deviations of the face: below what a box shifted by 5%,
 * another person or the face turned the other way measure, so only a face that did not move in its
 * box, turn or change counts as unchanged (docs/benchmarks.md, "Video at 4x").
 */
const SAME_LOOK = 0.2;
/** A face grown or shrunk by more than this (a zoom, a step closer) is seen larger or smaller: another look. */
const SAME_SIZE = 0.15;

export interface FaceLook {
  /** Cell brightness, zero mean and unit deviation over the face. */
  cells: Float32Array;
  /** The box's width in pixels. */
  width: number;
}

/** The look of the face in `box` (relative) of a raw RGB frame; null when the buffer is not width x height x 3 or the box is empty. */
export function faceLook(rgb: Buffer, width: number, height: number, box: FaceBox): FaceLook | null {
  if (rgb.length !== width * height * 3) return null;
  const x0 = Math.max(0, box.x * width);
  const y0 = Math.max(0, box.y * height);
  const x1 = Math.min(width, (box.x + box.width) * width);
  const y1 = Math.min(height, (box.y + box.height) * height);
  if (x1 - x0 < 1 || y1 - y0 < 1) return null;
  const points = GRID * SAMPLES;
  const cells = new Float32Array(GRID * GRID);
  for (let j = 0; j < points; j++) {
    const y = Math.min(height - 1, Math.floor(y0 + ((j + 0.5) * (y1 - y0)) / points));
    for (let i = 0; i < points; i++) {
      const x = Math.min(width - 1, Math.floor(x0 + ((i + 0.5) * (x1 - x0)) / points));
      const p = (y * width + x) * 3;
      cells[Math.floor(j / SAMPLES) * GRID + Math.floor(i / SAMPLES)] += rgb[p] + rgb[p + 1] + rgb[p + 2];
    }
  }
  let mean = 0;
  for (const c of cells) mean += c / cells.length;
  let variance = 0;
  for (const c of cells) variance += (c - mean) ** 2 / cells.length;
  const deviation = Math.sqrt(variance) || 1;
  for (let k = 0; k < cells.length; k++) cells[k] = (cells[k] - mean) / deviation;
  return { cells, width: x1 - x0 };
}

/** How far apart two looks are: the mean difference of their cells (0 the same, about 1.1 for unrelated faces). */
export function lookDistance(a: FaceLook, b: FaceLook): number {
  let sum = 0;
  for (let k = 0; k < a.cells.length; k++) sum += Math.abs(a.cells[k] - b.cells[k]);
  return sum / a.cells.length;
}

/** Whether a face looks as it did (same size, same pixels up to light and noise): a new descriptor of it would add nothing. */
export function sameLook(a: FaceLook | null | undefined, b: FaceLook | null | undefined): boolean {
  if (!a || !b) return false;
  if (Math.abs(a.width - b.width) > SAME_SIZE * Math.max(a.width, b.width)) return false;
  return lookDistance(a, b) < SAME_LOOK;
}
