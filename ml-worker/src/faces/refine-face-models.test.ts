import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { BlazeFaceDetector } from './blazeface-detector';
import { describeFaces } from './describe-faces';
import { FaceAnalyzer } from './face-analyzer';
import { refineFace } from './refine-face';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');
const demo = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
const WASM_PATH = `${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`;

/** A photo as the analyser holds it: its tensor and its raw RGB (the chip is sampled from the latter). */
const faceImageOf = async (image: Buffer) => {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    tensor: faceapi.tf.tensor3d(data, [info.height, info.width, 3], 'int32'),
    rgb: data,
    width: info.width,
    height: info.height,
  };
};
const distance = (a: Float32Array, b: Float32Array) => Math.sqrt(a.reduce((s, v, i) => s + (v - b[i]) ** 2, 0));

describe('refineFace (real models)', () => {
  beforeAll(() => new FaceAnalyzer().load(), 120_000);

  it('landmarks a turned head BlazeFace found so that its descriptor stays near the same face seen straight', async () => {
    const image = readFileSync(path.join(demo, 'sample3.jpg'));
    const straight = await faceImageOf(image);
    const [face] = (
      await faceapi
        .detectAllFaces(straight.tensor, new faceapi.TinyFaceDetectorOptions({ inputSize: 512 }))
        .withFaceLandmarks()
    ).sort((a: any, b: any) => b.detection.box.width - a.detection.box.width);
    const [reference] = await describeFaces(straight, [face.landmarks], true);
    straight.tensor.dispose();

    // The face squeezed to 70% of its width and tilted 15 degrees (a head turned towards 3/4 profile), on a grey 640x480 frame.
    const b = face.detection.box;
    const margin = Math.round(b.width * 0.4);
    const meta = await sharp(image).metadata();
    const left = Math.max(0, Math.round(b.x) - margin);
    const top = Math.max(0, Math.round(b.y) - margin);
    const cut = await sharp(image)
      .extract({
        left,
        top,
        width: Math.min(meta.width - left, Math.round(b.width) + 2 * margin),
        height: Math.min(meta.height - top, Math.round(b.height) + 2 * margin),
      })
      .resize(140, 200, { fit: 'fill' })
      .rotate(15, { background: { r: 110, g: 110, b: 110 } })
      .png()
      .toBuffer();
    const turned = await faceImageOf(
      await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 110, g: 110, b: 110 } } })
        .composite([{ input: cut, left: 220, top: 120 }])
        .jpeg()
        .toBuffer(),
    );
    try {
      const blazeface = new BlazeFaceDetector();
      await blazeface.load(WASM_PATH);
      const [box] = await blazeface.detect(turned.tensor);
      expect(box).toBeDefined();
      const refined = await refineFace(turned.tensor, box);
      expect(refined).not.toBeNull();
      const [described] = await describeFaces(turned, [refined!.landmarks], true);
      // Under the photo path's limit for a face only BlazeFace finds (0.56 less 0.04).
      expect(distance(described, reference)).toBeLessThan(0.45);
    } finally {
      turned.tensor.dispose();
    }
  }, 120_000);
});
