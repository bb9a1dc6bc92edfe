import { PixelBox } from './blazeface-detector';
import { centreInside } from './face-boxes';

// The same face-api module (and tfjs backend) as FaceAnalyzer's.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');

/** The region around a BlazeFace box that is looked at again: this many times the box's larger side, square, resized to CROP_SIDE. */
const REGION_SCALE = 2;
const CROP_SIDE = 320;
/**
 * Tried in turn until one finds a face: the tiny detector, then SSD MobileNet (as the selfie path
 * falls back). SSD costs ~12 tiny runs, but on the race fixtures it ran for 1 face in 36, and on the
 * harder face set it is what refines 8 of the 58 occluded and turned faces.
 */
const REFINE_DETECTORS = () => [
  new faceapi.TinyFaceDetectorOptions({ inputSize: 224, scoreThreshold: 0.5 }),
  new faceapi.SsdMobilenetv1Options({ minConfidence: 0.5 }),
];

export interface RefinedFace {
  /** Pixels of the frame. */
  box: { x: number; y: number; width: number; height: number };
  /** face-api's 68 landmarks in pixels of the frame. */
  landmarks: any;
}

/** The square region around a box (REGION_SCALE times its larger side), cut to the image. */
export function regionAround(
  box: PixelBox,
  width: number,
  height: number,
): { left: number; top: number; width: number; height: number } {
  const half = (Math.max(box.width, box.height) * REGION_SCALE) / 2;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const left = Math.min(width - 1, Math.max(0, Math.round(cx - half)));
  const top = Math.min(height - 1, Math.max(0, Math.round(cy - half)));
  return {
    left,
    top,
    width: Math.max(1, Math.min(width, Math.round(cx + half)) - left),
    height: Math.max(1, Math.min(height, Math.round(cy + half)) - top),
  };
}

/**
 * A face only BlazeFace found, looked at again by the tiny detector (then SSD) on an upscaled crop
 * around its box: face-api's landmarks on BlazeFace's own box are often off for
 * turned and tilted heads (a turned face in video matched its selfie at 0.75 so, at 0.41 refined).
 * The face nearest the crop's centre, mapped back to the frame and landmarked (only it: the
 * neighbours the crop also shows are found on their own); null when no detector finds one there,
 * or only a neighbour's.
 * `ssdFallback: false`: the tiny detector alone (video: SSD costs ~300 ms a face).
 */
export async function refineFace(
  tensor: any,
  box: PixelBox,
  opts: { ssdFallback?: boolean } = {},
): Promise<RefinedFace | null> {
  const [height, width] = tensor.shape;
  const region = regionAround(box, width, height);
  const crop = faceapi.tf.tidy(() =>
    faceapi.tf.image.resizeBilinear(tensor.slice([region.top, region.left, 0], [region.height, region.width, 3]), [
      CROP_SIDE,
      CROP_SIDE,
    ]),
  );
  try {
    let found: any[] = [];
    for (const options of opts.ssdFallback === false ? REFINE_DETECTORS().slice(0, 1) : REFINE_DETECTORS()) {
      found = await faceapi.detectAllFaces(crop, options);
      if (found.length) break;
    }
    if (!found.length) return null;
    const centre = CROP_SIDE / 2;
    const offCentre = (d: any) => Math.hypot(d.box.x + d.box.width / 2 - centre, d.box.y + d.box.height / 2 - centre);
    const best = [...found].sort((a, b) => offCentre(a) - offCentre(b))[0];
    const sx = region.width / CROP_SIDE;
    const sy = region.height / CROP_SIDE;
    const b = best.box;
    const refinedBox = {
      x: region.left + b.x * sx,
      y: region.top + b.y * sy,
      width: b.width * sx,
      height: b.height * sy,
    };
    // A neighbour's face, not this one (whose detection failed): it is found on its own already.
    if (!centreInside(box, refinedBox)) return null;
    const landmarks = await landmarksIn(crop, best);
    const points = landmarks.positions.map(
      (p: { x: number; y: number }) =>
        new faceapi.Point((region.left + p.x * sx) / width, (region.top + p.y * sy) / height),
    );
    return {
      box: refinedBox,
      landmarks: new faceapi.FaceLandmarks68(points, { width, height }),
    };
  } finally {
    crop.dispose();
  }
}

/** face-api's 68 landmarks of one detection, in pixels of `image` (as `withFaceLandmarks` computes them). */
async function landmarksIn(image: any, detection: any): Promise<any> {
  const [face] = await faceapi.extractFaceTensors(image, [detection]);
  try {
    const unshifted = await faceapi.nets.faceLandmark68Net.detectLandmarks(face);
    return unshifted.shiftBy(detection.box.x, detection.box.y);
  } finally {
    face.dispose();
  }
}
