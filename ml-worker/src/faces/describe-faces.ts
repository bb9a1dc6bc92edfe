import { chipTransform, CHIP_SIZE, sampleChip, usableTransform } from './face-chip';

// The same face-api module (and tfjs backend) as FaceAnalyzer's.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');

/**
 * Faces per forward pass of the recognition net (twice as many images when mirrored): one batch
 * costs ~16% less per face than one call per image on tfjs-wasm, with the same descriptors bit for
 * bit; bounded so that a crowded photo does not hold every face's activations at once.
 */
export const DESCRIBE_BATCH = 16;

/** An image as the analyser holds it: its tensor (int32, height x width x 3) and the same raw RGB pixels. */
export interface FaceImage {
  tensor: unknown;
  rgb: Uint8Array;
  width: number;
  height: number;
}

/**
 * Which chip the recognition net sees: `chip`, dlib's face chip (descriptor versions 4-5: the
 * landmarks' similarity transform, face-chip.ts), or `box`, face-api's axis-aligned box (versions
 * 1-3, kept for selfies while older faces remain).
 */
export type ChipKind = 'chip' | 'box';

/**
 * The 128-d descriptor of each landmarked face, the mean of the face's and its mirror image's when
 * `mirrored`; in the order given.
 */
export async function describeFaces(
  image: FaceImage,
  landmarks: any[],
  mirrored: boolean,
  kind: ChipKind = 'chip',
): Promise<Float32Array[]> {
  if (landmarks.length === 0) return [];
  const crops: any[] =
    kind === 'chip'
      ? landmarks.map((l) => {
          const transform = chipTransform(l.positions);
          // Degenerate landmarks: an empty chip, described as the zero descriptor (as an empty box is).
          if (!usableTransform(transform)) return faceapi.tf.zeros([0, 0, 3], 'float32');
          return faceapi.tf.tensor3d(
            sampleChip(image.rgb, image.width, image.height, transform),
            [CHIP_SIZE, CHIP_SIZE, 3],
            'float32',
          );
        })
      : await faceapi.extractFaceTensors(
          image.tensor,
          landmarks.map((l) => l.align(null, { useDlibAlignment: true })),
        );
  const flipped: any[] = mirrored ? crops.map((crop) => faceapi.tf.reverse(crop, 1)) : [];
  try {
    const out: Float32Array[] = [];
    for (let start = 0; start < crops.length; start += DESCRIBE_BATCH) {
      const part = crops
        .slice(start, start + DESCRIBE_BATCH)
        .map((crop, i) => (mirrored ? [crop, flipped[start + i]] : [crop]));
      const descriptors = await descriptorsOf(part.flat());
      const perFace = mirrored ? 2 : 1;
      for (let i = 0; i < part.length; i++) {
        const plain = descriptors[i * perFace];
        const mirror = descriptors[i * perFace + 1];
        out.push(mirror ? plain.map((v, k) => (v + mirror[k]) / 2) : Float32Array.from(plain));
      }
    }
    return out;
  } finally {
    for (const t of [...crops, ...flipped]) t.dispose();
  }
}

/** One batch through the recognition net; an empty crop (a degenerate box) gets the zero descriptor, as face-api gives it alone. */
async function descriptorsOf(images: any[]): Promise<Float32Array[]> {
  const empty = (image: any) => image.shape.some((dim: number) => dim <= 0);
  const real = images.filter((image) => !empty(image));
  const computed: Float32Array[] = real.length ? await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(real) : [];
  let next = 0;
  return images.map((image) => (empty(image) ? new Float32Array(128) : computed[next++]));
}
