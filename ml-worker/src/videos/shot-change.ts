/** Cells of the coarse colour layout, per side. */
const GRID = 8;
/** Histogram bins per channel. */
const BINS = 8;
/** Every SAMPLE_STEP-th pixel of every SAMPLE_STEP-th row is read: a signature costs well under a millisecond. */
const SAMPLE_STEP = 4;
/**
 * A shot change between two consecutive sampled frames moves both the colour layout (mean colour
 * of each cell, 0-1) and the colour histogram (share of pixels that changed bin, 0-1) past these.
 * Both must move: layout alone takes a fast pan for a cut, histogram alone a change of light
 * (how the pair was chosen: docs/benchmarks.md, video shot changes).
 */
export const SHOT_CHANGE = { layout: 0.11, histogram: 0.1 };

/** What a frame looks like from afar: its colour layout and its colour histogram. */
export interface ShotSignature {
  layout: Float32Array;
  histogram: Float32Array;
}

/** The signature of a raw RGB frame; null when the buffer is not width x height x 3. */
export function shotSignature(rgb: Buffer, width: number, height: number): ShotSignature | null {
  if (rgb.length !== width * height * 3 || width < 1 || height < 1) return null;
  const sums = new Float64Array(GRID * GRID * 3);
  const counts = new Uint32Array(GRID * GRID);
  const histogram = new Float32Array(BINS * 3);
  let samples = 0;
  for (let y = 0; y < height; y += SAMPLE_STEP) {
    const row = Math.min(GRID - 1, Math.floor((y * GRID) / height)) * GRID;
    for (let x = 0; x < width; x += SAMPLE_STEP) {
      const i = (y * width + x) * 3;
      const cell = row + Math.min(GRID - 1, Math.floor((x * GRID) / width));
      for (let c = 0; c < 3; c++) {
        sums[cell * 3 + c] += rgb[i + c];
        histogram[c * BINS + ((rgb[i + c] * BINS) >> 8)]++;
      }
      counts[cell]++;
      samples++;
    }
  }
  const layout = Float32Array.from(sums, (sum, i) =>
    counts[Math.floor(i / 3)] ? sum / counts[Math.floor(i / 3)] / 255 : 0,
  );
  for (let i = 0; i < histogram.length; i++) histogram[i] /= samples;
  return { layout, histogram };
}

/** How far apart two signatures are: mean colour change per cell, and the share of pixels in other histogram bins. */
export function shotDistance(a: ShotSignature, b: ShotSignature): { layout: number; histogram: number } {
  let layout = 0;
  for (let i = 0; i < a.layout.length; i++) layout += Math.abs(a.layout[i] - b.layout[i]);
  let histogram = 0;
  for (let i = 0; i < a.histogram.length; i++) histogram += Math.abs(a.histogram[i] - b.histogram[i]);
  return { layout: layout / a.layout.length, histogram: histogram / 2 / 3 };
}

/** Whether a new shot starts between two consecutive sampled frames (unknown frames: no). */
export function isShotChange(before: ShotSignature | null, after: ShotSignature | null): boolean {
  if (!before || !after) return false;
  const d = shotDistance(before, after);
  return d.layout >= SHOT_CHANGE.layout && d.histogram >= SHOT_CHANGE.histogram;
}
