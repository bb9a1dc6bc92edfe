import type { PersonBox } from '../bibs/torso-gate';
import type { Box } from './face-boxes';

// The same face-api module (and tfjs backend) as FaceAnalyzer's.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');

export interface HeadRegionRules {
  /** People scored lower by the person detector are not looked at (many are bags, posters, parts of a crowd). */
  minPersonScore: number;
  /**
   * A head region narrower than this (pixels of the analysed image) holds no face big enough to keep:
   * the faces found in head regions of the race fixtures were 0.3-0.45 of the region's side, so
   * twice the photo path's 48 px minimum face width (smaller regions cost ~25 ms each for nothing).
   */
  minRegionSide: number;
  /**
   * At most this many regions per photo, the people the detector is surest of first: a crowd seen
   * from behind has many people without a face, and each region costs 25-65 ms of CPU.
   */
  maxRegions: number;
  /** Each region is resized so that its longer side is this before the tiny detector sees it (small heads are enlarged). */
  cropSide: number;
  /** The tiny detector's input and score threshold on the crop. */
  inputSize: number;
  scoreThreshold: number;
}

/**
 * On the race fixtures, people scored 0.3 and more are people; a 224 px crop (the tiny detector's
 * input: no second resize) puts a head region's face at 70-100 px, whatever the person's size.
 */
export const DEFAULT_HEAD_REGION_RULES: HeadRegionRules = {
  minPersonScore: 0.3,
  minRegionSide: 96,
  maxRegions: 6,
  cropSide: 224,
  inputSize: 224,
  scoreThreshold: 0.5,
};

/** A region of the analysed image, in whole pixels. */
export interface PixelRegion {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * Where the head of each person is (boxes relative to the image, from the person detector) and no
 * face was found yet (`faces`: pixels), at most `maxRegions`: a square as wide as the person, or as the person is tall
 * when lying or cut, at the top of the person's box, starting a little above it (the detector's
 * box often cuts the hair). Regions that hold a face already are skipped: a face missed by the
 * whole-photo pass is where a person is and no face is.
 */
export function headRegions(
  people: PersonBox[],
  faces: Box[],
  width: number,
  height: number,
  rules: HeadRegionRules = DEFAULT_HEAD_REGION_RULES,
): PixelRegion[] {
  const regions: PixelRegion[] = [];
  const holds = (r: PixelRegion, f: Box) => {
    const cx = f.x + f.width / 2;
    const cy = f.y + f.height / 2;
    return cx >= r.left && cx <= r.left + r.width && cy >= r.top && cy <= r.top + r.height;
  };
  for (const p of [...people].sort((a, b) => b.score - a.score)) {
    if (p.score < rules.minPersonScore || regions.length >= rules.maxRegions) break;
    const side = Math.min(p.width * width, p.height * height);
    const left = Math.max(0, Math.round((p.x + p.width / 2) * width - side / 2));
    const top = Math.max(0, Math.round(p.y * height - 0.1 * side));
    const region = {
      left,
      top,
      width: Math.min(width - left, Math.round(side)),
      height: Math.min(height - top, Math.round(side)),
    };
    if (Math.min(region.width, region.height) < rules.minRegionSide) continue;
    if (faces.some((f) => holds(region, f))) continue;
    // Two people's regions over one head (a person detected twice): looked at once.
    if (regions.some((r) => holds(r, { x: region.left, y: region.top, width: region.width, height: region.height })))
      continue;
    regions.push(region);
  }
  return regions;
}

export interface HeadFace {
  /** Pixels of the analysed image. */
  box: Box;
  score: number;
  /** face-api's 68 landmarks in pixels of the analysed image. */
  landmarks: any;
}

/**
 * Faces the tiny detector finds in each region (an int32 [height, width, 3] tensor's), each region
 * enlarged to `cropSide` first; boxes and landmarks mapped back to the image. A face whose centre
 * lies outside its region (a neighbour's, cut by the region's edge) is left to its own region.
 */
export async function facesInRegions(
  tensor: any,
  regions: PixelRegion[],
  rules: HeadRegionRules = DEFAULT_HEAD_REGION_RULES,
): Promise<HeadFace[]> {
  const [height, width] = tensor.shape;
  const out: HeadFace[] = [];
  const options = new faceapi.TinyFaceDetectorOptions({
    inputSize: rules.inputSize,
    scoreThreshold: rules.scoreThreshold,
  });
  for (const region of regions) {
    const scale = rules.cropSide / Math.max(region.width, region.height);
    const size = [Math.max(1, Math.round(region.height * scale)), Math.max(1, Math.round(region.width * scale))];
    const crop = faceapi.tf.tidy(() =>
      faceapi.tf.image.resizeBilinear(
        tensor.slice([region.top, region.left, 0], [region.height, region.width, 3]),
        size,
      ),
    );
    try {
      for (const r of await faceapi.detectAllFaces(crop, options).withFaceLandmarks()) {
        const b = r.detection.box;
        const box = {
          x: region.left + b.x / scale,
          y: region.top + b.y / scale,
          width: b.width / scale,
          height: b.height / scale,
        };
        const cx = box.x + box.width / 2;
        const cy = box.y + box.height / 2;
        if (cx < region.left || cx > region.left + region.width || cy < region.top || cy > region.top + region.height)
          continue;
        const points = r.landmarks.positions.map(
          (p: { x: number; y: number }) =>
            new faceapi.Point((region.left + p.x / scale) / width, (region.top + p.y / scale) / height),
        );
        out.push({ box, score: r.detection.score, landmarks: new faceapi.FaceLandmarks68(points, { width, height }) });
      }
    } finally {
      crop.dispose();
    }
  }
  return out;
}
