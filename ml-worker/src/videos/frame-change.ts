/** Frames are compared by the mean of each square block this many pixels wide (every SAMPLE_STEP-th pixel of it). */
const BLOCK = 32;
const SAMPLE_STEP = 2;
/**
 * Two frames show the same picture when no block's mean (0-255, over its channels) moved by more
 * than this: encoder noise on a still shot moves block means by 1-2; a face of 40 px (the smallest
 * matched) coming, leaving or turning moves the blocks it covers by far more.
 */
const STILL_BLOCK_DELTA = 6;

/** The block means of a raw RGB frame; null when the buffer is not width x height x 3 (then no frame is the same as it). */
export function blockMeans(rgb: Buffer, width: number, height: number): Float32Array | null {
  if (rgb.length !== width * height * 3) return null;
  const cols = Math.ceil(width / BLOCK);
  const rows = Math.ceil(height / BLOCK);
  const sums = new Float64Array(cols * rows);
  const counts = new Uint32Array(cols * rows);
  for (let y = 0; y < height; y += SAMPLE_STEP) {
    const row = Math.floor(y / BLOCK) * cols;
    for (let x = 0; x < width; x += SAMPLE_STEP) {
      const i = (y * width + x) * 3;
      const block = row + Math.floor(x / BLOCK);
      sums[block] += rgb[i] + rgb[i + 1] + rgb[i + 2];
      counts[block] += 3;
    }
  }
  return Float32Array.from(sums, (sum, i) => sum / counts[i]);
}

/** Whether two frames' block means show the same picture (nothing came, left or moved). */
export function samePicture(a: Float32Array | null, b: Float32Array | null): boolean {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (Math.abs(a[i] - b[i]) > STILL_BLOCK_DELTA) return false;
  return true;
}
