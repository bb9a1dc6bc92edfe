import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describeFaces, DESCRIBE_BATCH } from './describe-faces';
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

  it('gives, in batches, the descriptors of one face at a time bit for bit, more faces than a batch included', async () => {
    const { data, info } = await sharp(readFileSync(path.join(demo, 'sample1.jpg'))).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const tensor = faceapi.tf.tensor3d(data, [info.height, info.width, 3], 'int32');
    try {
      const found = await faceapi.detectAllFaces(tensor, new faceapi.TinyFaceDetectorOptions({ inputSize: 416 })).withFaceLandmarks();
      expect(found.length).toBeGreaterThan(1);
      // Each face several times over: more than one batch.
      const landmarks = Array.from({ length: DESCRIBE_BATCH + 3 }, (_, i) => found[i % found.length].landmarks);
      const batched = await describeFaces(tensor, landmarks, true);
      expect(batched).toHaveLength(landmarks.length);
      expect(batched).toEqual(await oneByOne(tensor, landmarks));
    } finally {
      tensor.dispose();
    }
  }, 120_000);
});
