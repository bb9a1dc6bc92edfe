import path from 'node:path';
import sharp from 'sharp';

// The node-wasm build of face-api runs on @tensorflow/tfjs with the wasm backend (tfjs-node cannot
// be installed offline); its models ship inside the npm package.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const wasm = require('@tensorflow/tfjs-backend-wasm');

export interface DetectedFace {
  /** Box relative to the image (0-1), so it holds at any resolution. */
  box: { x: number; y: number; width: number; height: number };
  score: number;
  descriptor: Float32Array;
}

export interface FaceAnalyzerOptions {
  /** Input size of the tiny face detector: larger finds smaller faces, slower. */
  inputSize: number;
  scoreThreshold: number;
  /** Faces narrower than this (pixels of the analysed image) are too small to match reliably. */
  minFaceWidth: number;
}

export const PHOTO_FACE_OPTIONS: FaceAnalyzerOptions = { inputSize: 512, scoreThreshold: 0.5, minFaceWidth: 48 };

/**
 * Face detection, landmarks and 128-d descriptors. Models load once per process; tfjs-wasm is
 * single-threaded, so calls are serialised and parallelism comes from more worker processes.
 */
export class FaceAnalyzer {
  private ready: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  load(): Promise<void> {
    this.ready ??= (async () => {
      wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`);
      if (!(await faceapi.tf.setBackend('wasm'))) throw new Error('the tfjs wasm backend failed to initialise');
      await faceapi.tf.ready();
      const models = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
      await faceapi.nets.tinyFaceDetector.loadFromDisk(models);
      await faceapi.nets.ssdMobilenetv1.loadFromDisk(models);
      await faceapi.nets.faceLandmark68Net.loadFromDisk(models);
      await faceapi.nets.faceRecognitionNet.loadFromDisk(models);
    })();
    return this.ready;
  }

  /** Every face of a photo big enough to match, best score first. */
  detectAll(image: Buffer, options: FaceAnalyzerOptions = PHOTO_FACE_OPTIONS): Promise<DetectedFace[]> {
    return this.serialised(async () => {
      await this.load();
      const { data, info } = await sharp(image).rotate().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
      const tensor = faceapi.tf.tensor3d(data, [info.height, info.width, 3], 'int32');
      try {
        const results = await faceapi
          .detectAllFaces(tensor, new faceapi.TinyFaceDetectorOptions({ inputSize: options.inputSize, scoreThreshold: options.scoreThreshold }))
          .withFaceLandmarks()
          .withFaceDescriptors();
        return results
          .filter((r: any) => r.detection.box.width >= options.minFaceWidth)
          .map((r: any) => ({
            box: {
              x: r.detection.box.x / info.width,
              y: r.detection.box.y / info.height,
              width: r.detection.box.width / info.width,
              height: r.detection.box.height / info.height,
            },
            score: r.detection.score,
            descriptor: Float32Array.from(r.descriptor),
          }))
          .sort((a: DetectedFace, b: DetectedFace) => b.score - a.score);
      } finally {
        tensor.dispose();
      }
    });
  }

  private serialised<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
