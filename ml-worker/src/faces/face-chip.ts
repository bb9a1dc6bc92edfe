/** The side of the chip the recognition net sees (face-api's port of dlib's ResNet takes 150x150). */
export const CHIP_SIZE = 150;
/**
 * Margin around dlib's mean face on the chip, as a share of the face (dlib's get_face_chip_details
 * `padding`; its own example uses 0.25). Chosen on a held-out split of the face fixtures: see
 * docs/benchmarks.md, "Face chip (descriptor version 4)".
 */
export const CHIP_PADDING = 0.25;

// dlib's mean face shape for landmarks 17..67 in the unit square (dlib/image_transforms/interpolation.h).
const MEAN_X = [
  0.000213256, 0.0752622, 0.18113, 0.29077, 0.393397, 0.586856, 0.689483, 0.799124, 0.904991, 0.98004, 0.490127,
  0.490127, 0.490127, 0.490127, 0.36688, 0.426036, 0.490127, 0.554217, 0.613373, 0.121737, 0.187122, 0.265825, 0.334606,
  0.260918, 0.182743, 0.645647, 0.714428, 0.793132, 0.858516, 0.79751, 0.719335, 0.254149, 0.340985, 0.428858, 0.490127,
  0.551395, 0.639268, 0.726104, 0.642159, 0.556721, 0.490127, 0.423532, 0.338094, 0.290379, 0.428096, 0.490127,
  0.552157, 0.689874, 0.553364, 0.490127, 0.42689,
];
const MEAN_Y = [
  0.106454, 0.038915, 0.0187482, 0.0344891, 0.0773906, 0.0773906, 0.0344891, 0.0187482, 0.038915, 0.106454, 0.203352,
  0.307009, 0.409805, 0.515625, 0.587326, 0.609345, 0.628106, 0.609345, 0.587326, 0.216423, 0.178758, 0.179852,
  0.231733, 0.245099, 0.244077, 0.231733, 0.179852, 0.178758, 0.216423, 0.244077, 0.245099, 0.780233, 0.745405,
  0.727388, 0.742578, 0.727388, 0.745405, 0.780233, 0.864805, 0.902192, 0.909281, 0.902192, 0.864805, 0.784792,
  0.778746, 0.785343, 0.778746, 0.784792, 0.824182, 0.831803, 0.824182,
];
const FIRST_LANDMARK = 17;

/** Where dlib's mean face (landmarks 17-67) lies on a chip with this padding: the landmarks the identity transform fits. */
export function meanFaceOnChip(padding = CHIP_PADDING): Point[] {
  const scale = CHIP_SIZE / (2 * padding + 1);
  return MEAN_X.map((x, i) => ({ x: (padding + x) * scale, y: (padding + MEAN_Y[i]) * scale }));
}

export interface Point {
  x: number;
  y: number;
}

/** chip -> image: image = [a -b; b a] chip + (tx, ty). */
export interface ChipTransform {
  a: number;
  b: number;
  tx: number;
  ty: number;
}

/**
 * dlib's get_face_chip_details: the least-squares similarity transform (rotation, scale, shift) of
 * dlib's mean face (with `padding` around it, on a CHIP_SIZE square) onto landmarks 17-67 of the 68.
 * Unlike face-api's own alignment (an axis-aligned box from the eyes and mouth), it levels the eyes.
 */
export function chipTransform(landmarks: Point[], padding = CHIP_PADDING): ChipTransform {
  if (landmarks.length < FIRST_LANDMARK + MEAN_X.length)
    throw new Error(`a face chip needs the 68 landmarks, not ${landmarks.length}`);
  const mean = meanFaceOnChip(padding);
  const n = mean.length;
  let fx = 0,
    fy = 0,
    lx = 0,
    ly = 0;
  for (let i = 0; i < n; i++) {
    fx += mean[i].x;
    fy += mean[i].y;
    lx += landmarks[FIRST_LANDMARK + i].x;
    ly += landmarks[FIRST_LANDMARK + i].y;
  }
  fx /= n;
  fy /= n;
  lx /= n;
  ly /= n;
  let dot = 0,
    cross = 0,
    norm = 0;
  for (let i = 0; i < n; i++) {
    const ax = mean[i].x - fx,
      ay = mean[i].y - fy;
    const bx = landmarks[FIRST_LANDMARK + i].x - lx,
      by = landmarks[FIRST_LANDMARK + i].y - ly;
    dot += ax * bx + ay * by;
    cross += ax * by - ay * bx;
    norm += ax * ax + ay * ay;
  }
  const a = dot / norm,
    b = cross / norm;
  return { a, b, tx: lx - (a * fx - b * fy), ty: ly - (b * fx + a * fy) };
}

/** Whether a transform maps the chip somewhere (degenerate landmarks, all on one point or not numbers, do not). */
export function usableTransform({ a, b, tx, ty }: ChipTransform): boolean {
  return [a, b, tx, ty].every(Number.isFinite) && a * a + b * b > 1e-12;
}

/**
 * The CHIP_SIZE x CHIP_SIZE RGB chip (float 0..255, row-major, 3 channels) of a face in a raw RGB
 * image, sampled bilinearly through `transform` (pixel centres at half-integers; black outside the image).
 */
export function sampleChip(rgb: Uint8Array, width: number, height: number, transform: ChipTransform): Float32Array {
  const { a, b, tx, ty } = transform;
  const out = new Float32Array(CHIP_SIZE * CHIP_SIZE * 3);
  const at = (x: number, y: number, k: number) =>
    x < 0 || y < 0 || x >= width || y >= height ? 0 : rgb[(y * width + x) * 3 + k];
  for (let v = 0; v < CHIP_SIZE; v++) {
    for (let u = 0; u < CHIP_SIZE; u++) {
      const cu = u + 0.5,
        cv = v + 0.5;
      const x = a * cu - b * cv + tx - 0.5;
      const y = b * cu + a * cv + ty - 0.5;
      const x0 = Math.floor(x),
        y0 = Math.floor(y);
      const fx = x - x0,
        fy = y - y0;
      const o = (v * CHIP_SIZE + u) * 3;
      const inside = x0 >= 0 && y0 >= 0 && x0 + 1 < width && y0 + 1 < height;
      for (let k = 0; k < 3; k++) {
        let p00, p10, p01, p11;
        if (inside) {
          const i = (y0 * width + x0) * 3 + k;
          p00 = rgb[i];
          p10 = rgb[i + 3];
          p01 = rgb[i + width * 3];
          p11 = rgb[i + width * 3 + 3];
        } else {
          p00 = at(x0, y0, k);
          p10 = at(x0 + 1, y0, k);
          p01 = at(x0, y0 + 1, k);
          p11 = at(x0 + 1, y0 + 1, k);
        }
        out[o + k] = (p00 * (1 - fx) + p10 * fx) * (1 - fy) + (p01 * (1 - fx) + p11 * fx) * fy;
      }
    }
  }
  return out;
}
