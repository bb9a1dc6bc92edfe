import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { descriptorDistance } from '@em/core/media';
import { describeFaces, DESCRIBE_BATCH, FaceImage } from './describe-faces';
import { FaceAnalyzer } from './face-analyzer';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');
const demo = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');

/** One face at a time, as the analyser described faces before batching. */
async function oneByOne(tensor: unknown, landmarks: any[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (const l of landmarks) {
    const [crop] = await faceapi.extractFaceTensors(tensor, [l.align(null, { useDlibAlignment: true })]);
    const flipped = faceapi.tf.reverse(crop, 1);
    const plain: Float32Array = await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(crop);
    const mirror: Float32Array = await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(flipped);
    out.push(plain.map((v, i) => (v + mirror[i]) / 2));
    crop.dispose();
    flipped.dispose();
  }
  return out;
}

describe('describeFaces (real models)', () => {
  beforeAll(() => new FaceAnalyzer().load(), 120_000);

  async function withFaces(run: (image: FaceImage, landmarks: any[]) => Promise<void>) {
    const { data, info } = await sharp(readFileSync(path.join(demo, 'sample1.jpg')))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const tensor = faceapi.tf.tensor3d(data, [info.height, info.width, 3], 'int32');
    try {
      const found = await faceapi
        .detectAllFaces(tensor, new faceapi.TinyFaceDetectorOptions({ inputSize: 416 }))
        .withFaceLandmarks();
      expect(found.length).toBeGreaterThan(1);
      // Each face several times over: more than one batch.
      await run(
        { tensor, rgb: data, width: info.width, height: info.height },
        Array.from({ length: DESCRIBE_BATCH + 3 }, (_, i) => found[i % found.length].landmarks),
      );
    } finally {
      tensor.dispose();
    }
  }

  it(
    'gives, in batches, the box descriptors of one face at a time bit for bit (versions 2-3), more faces than a batch included',
    () =>
      withFaces(async (image, landmarks) => {
        const batched = await describeFaces(image, landmarks, true, 'box');
        expect(batched).toHaveLength(landmarks.length);
        expect(batched).toEqual(await oneByOne(image.tensor, landmarks));
      }),
    120_000,
  );

  it(
    "describes dlib's chip by default (version 4): the same face in another family, a descriptor of its own",
    () =>
      withFaces(async (image, landmarks) => {
        const [chip] = await describeFaces(image, landmarks.slice(0, 1), true);
        const [box] = await describeFaces(image, landmarks.slice(0, 1), true, 'box');
        const [again] = await describeFaces(
          image,
          landmarks.slice(DESCRIBE_BATCH, DESCRIBE_BATCH + 1).concat(landmarks.slice(0, 1)),
          true,
        );
        expect(chip).toHaveLength(128);
        // The same face: near in both families, but not the same vector (so families are never mixed).
        expect(descriptorDistance(chip, box)).toBeGreaterThan(0.05);
        expect(descriptorDistance(chip, box)).toBeLessThan(0.5);
        expect(descriptorDistance(chip, (await describeFaces(image, landmarks.slice(0, 1), true))[0])).toBe(0);
        expect(again).toHaveLength(128);
        // Degenerate landmarks (all on one point): the zero descriptor, as an empty box gives, not NaN.
        const [degenerate] = await describeFaces(
          image,
          [{ positions: Array.from({ length: 68 }, () => ({ x: 10, y: 10 })) }],
          true,
        );
        expect(degenerate).toEqual(new Float32Array(128));
      }),
    120_000,
  );
});
