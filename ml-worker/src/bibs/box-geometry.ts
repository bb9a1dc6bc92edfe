import type { BoxGeometry } from '@em/core/media';

/** Decoded pixels, 4 bytes (RGBA) per pixel. */
export interface Rgba {
  data: Uint8Array | Buffer;
  width: number;
  height: number;
}

/** Strip around a text box, as a share of its height, where the patch the text is printed on shows. */
const SURROUND = 0.2;

/**
 * Where a text box is and what it is printed on: its axis-aligned bounds and the luminance of the
 * box (10th and 90th percentiles: the darkest and lightest of text and patch) and of a thin strip
 * around it (median: the patch itself). `corners` are the detector's four points.
 */
export function boxGeometry(image: Rgba, corners: number[][]): BoxGeometry {
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
  return {
    x: x0,
    y: y0,
    width: x1 - x0,
    height: y1 - y0,
    imageWidth: image.width,
    imageHeight: image.height,
    surround: percentile(around.length ? around : inside, 0.5),
    dark: percentile(inside, 0.1),
    light: percentile(inside, 0.9),
  };
}

function percentile(values: number[], q: number): number {
  if (!values.length) return 0;
  const sorted = Float64Array.from(values).sort();
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
}

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));
