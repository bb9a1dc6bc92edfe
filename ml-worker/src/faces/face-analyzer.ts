import path from 'node:path';
import { boundedCopy, openImage } from '@em/core/media';
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
/** Video frames (720p and below): faster than photos, faces of 40 px and more. */
export const VIDEO_FACE_OPTIONS: FaceAnalyzerOptions = { inputSize: 416, scoreThreshold: 0.5, minFaceWidth: 40 };
/** Selfies: the face is large, so a small detector input is enough (and fast). */
export const SELFIE_FACE_OPTIONS: FaceAnalyzerOptions = { inputSize: 224, scoreThreshold: 0.5, minFaceWidth: 24 };
/** Selfies and photos are analysed on a copy at most this large (boxes are relative, so they hold). */
const ANALYSIS_MAX_SIDE = 2048;
/** Tight face crops need a margin around the face before the detector sees it as one. */
const SELFIE_PADDING = 0.25;

export interface SelfieFace {
  descriptor: Float32Array | null;
  facesFound: number;
}

/**
 * Face detection, landmarks and 128-d descriptors. Models load once per process; tfjs-wasm is
 * single-threaded, so calls are serialised and parallelism comes from more worker processes.
 */
export class FaceAnalyzer {
  private ready: Promise<void> | null = null;
  private running = false;
  private readonly urgent: Array<() => void> = [];
  private readonly normal: Array<() => void> = [];

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
    return this.serialised('normal', () => this.detect(image, options, 'tiny'));
  }

  /**
   * The largest face of a selfie (it goes ahead of queued photo work: someone is waiting). The
   * image gets a margin first; when the fast detector finds nothing, the slower SSD one tries. With
   * `mirrored`, the descriptor is the mean of the selfie's and its mirror image's: +4 points of
   * recall at the same threshold on the face fixtures, no wrong person (bench/results.md).
   */
  embedSelfie(image: Buffer, opts: { mirrored?: boolean } = { mirrored: true }): Promise<SelfieFace> {
    return this.serialised('urgent', async () => {
      const bounded = (await boundedCopy(image, ANALYSIS_MAX_SIDE)).buffer;
      const meta = await openImage(bounded).metadata();
      const margin = Math.round(Math.max(meta.width ?? 0, meta.height ?? 0) * SELFIE_PADDING);
      const padded = await openImage(bounded)
        .rotate()
        .extend({ top: margin, bottom: margin, left: margin, right: margin, background: { r: 128, g: 128, b: 128 } })
        .jpeg({ quality: 95 })
        .toBuffer();
      const { largest, facesFound } = await this.largestFace(padded);
      if (!largest) return { descriptor: null, facesFound };
      if (!opts.mirrored) return { descriptor: largest.descriptor, facesFound };
      const mirror = (await this.largestFace(await sharp(padded).flop().toBuffer())).largest;
      if (!mirror) return { descriptor: largest.descriptor, facesFound };
      return { descriptor: largest.descriptor.map((v, i) => (v + mirror.descriptor[i]) / 2), facesFound };
    });
  }

  private async largestFace(image: Buffer): Promise<{ largest: DetectedFace | undefined; facesFound: number }> {
    let faces = await this.detect(image, SELFIE_FACE_OPTIONS, 'tiny');
    if (faces.length === 0) faces = await this.detect(image, SELFIE_FACE_OPTIONS, 'ssd');
    const largest = [...faces].sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height)[0];
    return { largest, facesFound: faces.length };
  }

  /** Every face of a decoded video frame (raw RGB). */
  detectFrame(rgb: Buffer, width: number, height: number, options: FaceAnalyzerOptions = VIDEO_FACE_OPTIONS): Promise<DetectedFace[]> {
    return this.serialised('normal', () => this.detectPixels(rgb, width, height, options, 'tiny'));
  }

  private async detect(image: Buffer, options: FaceAnalyzerOptions, detector: 'tiny' | 'ssd'): Promise<DetectedFace[]> {
    const bounded = (await boundedCopy(image, ANALYSIS_MAX_SIDE)).buffer;
    const { data, info } = await openImage(bounded).rotate().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
    return this.detectPixels(data, info.width, info.height, options, detector);
  }

  private async detectPixels(data: Buffer, width: number, height: number, options: FaceAnalyzerOptions, detector: 'tiny' | 'ssd'): Promise<DetectedFace[]> {
    await this.load();
    const info = { width, height };
    const tensor = faceapi.tf.tensor3d(data, [height, width, 3], 'int32');
    try {
      const detectorOptions = detector === 'tiny'
        ? new faceapi.TinyFaceDetectorOptions({ inputSize: options.inputSize, scoreThreshold: options.scoreThreshold })
        : new faceapi.SsdMobilenetv1Options({ minConfidence: options.scoreThreshold });
      const results = await faceapi
        .detectAllFaces(tensor, detectorOptions)
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
  }

  /** One call at a time (tfjs-wasm is single-threaded); urgent calls go before waiting normal ones. */
  private serialised<T>(priority: 'urgent' | 'normal', work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      (priority === 'urgent' ? this.urgent : this.normal).push(() => {
        work()
          .then(resolve, reject)
          .finally(() => {
            this.running = false;
            this.next();
          });
      });
      this.next();
    });
  }

  private next(): void {
    if (this.running) return;
    const task = this.urgent.shift() ?? this.normal.shift();
    if (!task) return;
    this.running = true;
    task();
  }
}
