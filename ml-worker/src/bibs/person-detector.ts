import type { PersonBox } from './torso-gate';
import { openImage } from '@em/core/media';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { HUMAN_MODELS_DIR } from '../models/human-models-dir';
import { useFastConcat } from '../tfjs/fast-concat';
import { useHeapSlice } from '../tfjs/heap-slice';
import type { Rgba } from './box-geometry';

// tfjs with the wasm backend, as the face analyser (tfjs-node cannot be installed offline); this
// runs in the OCR thread, which has its own copy of both.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const tf = require('@tensorflow/tfjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const wasm = require('@tensorflow/tfjs-backend-wasm');

/** COCO class index of "person" in the detector's output. */
const PERSON = 0;

export interface PersonDetectorOptions {
  /** The model's input side (the photo is squeezed into a square of this size). */
  inputSize: number;
  /** Detections under this score are dropped (the torso gate applies its own, higher, bound). */
  minScore: number;
}

export const DEFAULT_PERSON_OPTIONS: PersonDetectorOptions = { inputSize: 512, minScore: 0.15 };

/**
 * People on a photo, with CenterNet (MobileNetV3, COCO; the weights ship in
 * @vladmandic/human and are read from disk: nothing is downloaded). About 0.2-0.25 s of CPU
 * per photo at 512 px; on the race fixtures every runner whose bib is readable is found with a
 * score >= 0.24. Calls are serialised by the caller (the OCR thread reads one photo at a time).
 */
export class PersonDetector {
  private model: Promise<any> | null = null;

  constructor(private readonly options: PersonDetectorOptions = DEFAULT_PERSON_OPTIONS) {}

  load(): Promise<any> {
    this.model ??= (async () => {
      await useWasmBackend();
      useHeapSlice();
      useFastConcat(); // the same values as tfjs-wasm's Concat, without a typed-array view per short run
      const dir = HUMAN_MODELS_DIR;
      const json = JSON.parse(readFileSync(path.join(dir, 'centernet.json'), 'utf8'));
      const weights = readFileSync(path.join(dir, 'centernet.bin'));
      const weightData = weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength);
      const weightSpecs = json.weightsManifest.flatMap((group: { weights: unknown[] }) => group.weights);
      return tf.loadGraphModel(
        tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs, weightData, signature: json.signature }),
      );
    })();
    return this.model;
  }

  /**
   * The people on decoded pixels (RGBA, or RGB: libvips resizes R, G and B to the same values without the alpha
   * band, for less work), boxes relative to the image.
   */
  async detect(image: Rgba): Promise<PersonBox[]> {
    const model = await this.load();
    const size = this.options.inputSize;
    const channels = image.data.length === image.width * image.height * 3 ? 3 : 4;
    const square = await openImage(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength), {
      raw: { width: image.width, height: image.height, channels },
    })
      .resize(size, size, { fit: 'fill' })
      .removeAlpha()
      .raw()
      .toBuffer();
    const input = tf.tidy(() => tf.tensor3d(square, [size, size, 3], 'int32').toFloat().expandDims(0));
    const output = model.execute(input, ['tower_0/detections']);
    try {
      // Each row: x0, y0, x1, y1 (input pixels), score, class.
      const rows: number[][] = (await output.array())[0];
      return rows
        .filter(([, , , , score, kind]) => kind === PERSON && score >= this.options.minScore)
        .map(([x0, y0, x1, y1, score]) => ({
          x: x0 / size,
          y: y0 / size,
          width: (x1 - x0) / size,
          height: (y1 - y0) / size,
          score,
        }));
    } finally {
      tf.dispose([input, output]);
    }
  }
}

/**
 * Switches this thread's tfjs to the wasm backend. Initialise it alone: when another model of the
 * same thread (the face analyser) initialises it at the same moment, tfjs answers false to one of
 * the two. The worker keeps this detector in the OCR threads (BibReaderPool, even with one photo at
 * a time) and the bench loads its models one after the other; waiting for an initialisation in
 * flight and retrying covers the common case only.
 */
async function useWasmBackend(): Promise<void> {
  try {
    wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`);
  } catch {
    // already initialised by the other model, with the same paths
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    await tf.ready(); // waits for an initialisation in flight
    if (tf.getBackend() === 'wasm' || (await tf.setBackend('wasm'))) {
      await tf.ready();
      if (tf.getBackend() === 'wasm') return;
    }
  }
  throw new Error('the tfjs wasm backend failed to initialise');
}
