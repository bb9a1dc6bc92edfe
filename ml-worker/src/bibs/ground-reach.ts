import type { BoxGeometry, GroundReach } from './extract';
import type { Rgba } from './box-geometry';

/** How far (in box heights) the walk looks for the end of the ground; farther counts as this. */
export const MAX_REACH = 3;

/**
 * A pixel is off the ground when a colour channel differs from the ground's by more than the larger
 * of `minStep` (0-255) and `stepShare` of the box's ink-to-ground luminance range (grain and JPEG
 * ringing on a crisp print stay under it). 25 / 0.2: shares of 0.15-0.35 refuse the same numbers
 * on the bench's tune half; 0.2 sees a sheet's edge 45 levels from the shirt on black-on-white
 * print. A fainter edge (a white sheet on a white shirt) is not seen: the sponsor lines above and
 * below the number still end the ground there, and only both sides open refuse a number.
 */
export interface GroundReachOptions {
  minStep: number;
  stepShare: number;
}

export const DEFAULT_GROUND_REACH_OPTIONS: GroundReachOptions = { minStep: 25, stepShare: 0.2 };

/**
 * How far the ground a number is printed on reaches beyond its box, in box heights, on each side
 * (median of three scan lines per side, capped at MAX_REACH). A bib is a sheet of paper: its ground
 * ends close around the number (the sheet's edge, its coloured frame, its sponsor lines). A number
 * printed on clothing lies on the fabric, which goes on to the torso's edges. The ground's colour is
 * the median of the box's lightest tenth (the paper between and around the digits). Dark print on
 * a light ground only: on light digits the "ground" is the digits (printedLikeABib refuses most).
 */
export function groundReach(
  image: Rgba,
  g: BoxGeometry,
  options: GroundReachOptions = DEFAULT_GROUND_REACH_OPTIONS,
): GroundReach {
  const ground = groundColour(image, g);
  const threshold = Math.max(options.minStep, options.stepShare * (g.light - g.dark));
  const offGround = (x: number, y: number) => {
    const i = (y * image.width + x) * 4;
    return (
      Math.max(
        Math.abs(image.data[i] - ground[0]),
        Math.abs(image.data[i + 1] - ground[1]),
        Math.abs(image.data[i + 2] - ground[2]),
      ) > threshold
    );
  };
  const h = g.height;
  const limit = Math.round(MAX_REACH * h);
  const settle = Math.max(2, Math.round(0.25 * h)); // the box's edge may cut a glyph's anti-aliased rim
  const run = Math.max(2, Math.round(0.06 * h)); // off-ground pixels in a row that end the ground (not one speck of noise)
  const walk = (x0: number, y0: number, dx: number, dy: number): number => {
    let steps = 0;
    while (
      steps < settle &&
      inside(image, x0 + steps * dx, y0 + steps * dy) &&
      offGround(x0 + steps * dx, y0 + steps * dy)
    )
      steps++;
    for (let off = 0; steps < limit; steps++) {
      const x = x0 + steps * dx;
      const y = y0 + steps * dy;
      if (!inside(image, x, y)) return steps / h; // the photo's edge ends what can be seen
      off = offGround(x, y) ? off + 1 : 0;
      if (off >= run) return (steps - run + 1) / h;
    }
    return MAX_REACH;
  };
  const rows = [0.3, 0.5, 0.7].map((f) => Math.round(g.y + f * h));
  const columns = [0.2, 0.5, 0.8].map((f) => Math.round(g.x + f * g.width));
  return {
    left: median(rows.map((y) => walk(g.x - 1, y, -1, 0))),
    right: median(rows.map((y) => walk(g.x + g.width, y, 1, 0))),
    up: median(columns.map((x) => walk(x, g.y - 1, 0, -1))),
    down: median(columns.map((x) => walk(x, g.y + g.height, 0, 1))),
  };
}

/**
 * Median RGB of the box's lightest pixels (the top tenth by luminance): the ground between and
 * around the digits. On a small bib the box also holds some of the coloured bands above and below
 * the number, so the middle of the box's luminance range would mix them in.
 */
export function groundColour(
  image: Rgba,
  g: Pick<BoxGeometry, 'x' | 'y' | 'width' | 'height'>,
): [number, number, number] {
  const d = image.data;
  const lum = (i: number) => Math.round(0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2]);
  const stride = Math.max(1, Math.floor(Math.sqrt((g.width * g.height) / 100_000))); // every pixel up to 100k, a grid beyond
  const pixels = (visit: (i: number) => void) => {
    for (let y = g.y; y < g.y + g.height; y += stride)
      for (let x = g.x; x < g.x + g.width; x += stride) visit((y * image.width + x) * 4);
  };
  const byLuminance = new Uint32Array(256);
  let total = 0;
  pixels((i) => {
    byLuminance[lum(i)]++;
    total++;
  });
  let cut = 255;
  for (let lighter = byLuminance[255]; lighter < total / 10 && cut > 0;) lighter += byLuminance[--cut];
  const byChannel = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)];
  let count = 0;
  pixels((i) => {
    if (lum(i) < cut) return;
    count++;
    for (let c = 0; c < 3; c++) byChannel[c][d[i + c]]++;
  });
  return byChannel.map((histogram) => {
    let v = 0;
    for (let seen = histogram[0]; seen <= count / 2 && v < 255;) seen += histogram[++v];
    return v;
  }) as [number, number, number];
}

const inside = (image: Rgba, x: number, y: number) => x >= 0 && y >= 0 && x < image.width && y < image.height;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
