import type { FaceQualitySignals } from './face-quality';

interface PixelRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

const GRID = 64;

/**
 * Contrast and sharpness of a face box in a raw RGB image, measured on a GRID x GRID sample of its
 * luminance (so they do not depend on the face's size): the standard deviation, and the mean absolute
 * Laplacian (4-neighbour).
 */
export function facePixelSignals(
  rgb: Uint8Array,
  width: number,
  height: number,
  box: PixelRect,
): Pick<FaceQualitySignals, 'contrast' | 'sharpness'> {
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const w = Math.min(width, Math.ceil(box.x + box.width)) - x0;
  const h = Math.min(height, Math.ceil(box.y + box.height)) - y0;
  if (w <= 0 || h <= 0) return { contrast: 0, sharpness: 0 };
  const luma = new Float32Array(GRID * GRID);
  let sum = 0;
  for (let gy = 0; gy < GRID; gy++) {
    const py = y0 + Math.min(h - 1, Math.floor(((gy + 0.5) * h) / GRID));
    for (let gx = 0; gx < GRID; gx++) {
      const px = x0 + Math.min(w - 1, Math.floor(((gx + 0.5) * w) / GRID));
      const o = (py * width + px) * 3;
      const v = 0.299 * rgb[o] + 0.587 * rgb[o + 1] + 0.114 * rgb[o + 2];
      luma[gy * GRID + gx] = v;
      sum += v;
    }
  }
  const avg = sum / luma.length;
  let variance = 0;
  for (const v of luma) variance += (v - avg) ** 2;
  let laplacian = 0;
  for (let gy = 1; gy < GRID - 1; gy++) {
    for (let gx = 1; gx < GRID - 1; gx++) {
      const i = gy * GRID + gx;
      laplacian += Math.abs(4 * luma[i] - luma[i - 1] - luma[i + 1] - luma[i - GRID] - luma[i + GRID]);
    }
  }
  return { contrast: Math.sqrt(variance / luma.length), sharpness: laplacian / (GRID - 2) ** 2 };
}
