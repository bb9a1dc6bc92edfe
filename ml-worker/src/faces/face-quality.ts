export interface Point {
  x: number;
  y: number;
}

/** What says how reliable a face's descriptor is, measured when the face is found. */
export interface FaceQualitySignals {
  /** How far the nose tip sits from the middle of the eyes, along the eye line: 0 frontal, 1 under an eye (a head turned ~45 degrees and more). */
  yaw: number;
  /** Eye distance over eye-to-mouth distance: about 1 on a frontal face, less when turned or foreshortened. */
  proportion: number;
  /** Distance between the eye centres, in pixels of the analysed image. */
  eyeDistancePx: number;
  /** The detector's score (0-1). */
  score: number;
  /** Standard deviation of the face's luminance (0-255): dark or flat faces are low. */
  contrast: number;
  /** Mean absolute Laplacian of the face's luminance on a 64x64 grid (0-255): blurred faces are low. */
  sharpness: number;
}

const mean = (points: Point[]): Point => ({
  x: points.reduce((s, p) => s + p.x, 0) / points.length,
  y: points.reduce((s, p) => s + p.y, 0) / points.length,
});
const dist = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);

/** The pose signals of 68 face landmarks (dlib / face-api order: eyes 36-47, nose tip 30, mouth corners 48 and 54). */
export function landmarkSignals(points: Point[]): Pick<FaceQualitySignals, 'yaw' | 'proportion' | 'eyeDistancePx'> {
  if (points.length !== 68) throw new Error(`68 face landmarks expected, not ${points.length}`);
  const left = mean(points.slice(36, 42));
  const right = mean(points.slice(42, 48));
  const eyeDistancePx = dist(left, right);
  if (eyeDistancePx === 0) return { yaw: 1, proportion: 0, eyeDistancePx };
  const nose = points[30];
  const along = ((nose.x - left.x) * (right.x - left.x) + (nose.y - left.y) * (right.y - left.y)) / eyeDistancePx ** 2;
  const eyes = mean([left, right]);
  const mouth = mean([points[48], points[54]]);
  const eyeToMouth = dist(eyes, mouth);
  return {
    yaw: Math.min(1, Math.abs(along - 0.5) * 2),
    proportion: eyeToMouth === 0 ? 0 : eyeDistancePx / eyeToMouth,
    eyeDistancePx,
  };
}

/** 0 at `bad` and below, 1 at `good` and above, linear between. */
function ramp(value: number, bad: number, good: number): number {
  return Math.max(0, Math.min(1, (value - bad) / (good - bad)));
}

/**
 * A face's quality, 0 (unreliable) to 1: the weakest of its pose, size, detector score, contrast
 * and sharpness, each ramped between where descriptors stop and start being trustworthy.
 */
export function faceQuality(s: FaceQualitySignals): number {
  const parts = [
    ramp(1 - s.yaw, 0.2, 0.6),
    ramp(s.proportion, 0.7, 0.9),
    ramp(s.eyeDistancePx, 12, 24),
    ramp(s.score, 0.4, 0.6),
    ramp(s.contrast, 10, 20),
    ramp(s.sharpness, 3, 8),
  ];
  return Math.round(Math.min(...parts) * 1000) / 1000;
}
