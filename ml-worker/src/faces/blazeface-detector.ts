import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { HUMAN_DIST_DIR, HUMAN_MODELS_DIR } from '../models/human-models-dir';
import { Box, mergeTileFaces } from './face-boxes';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Human } = require(path.join(HUMAN_DIST_DIR, 'human.node-wasm.js'));
export { HUMAN_MODELS_DIR };

/** A face box in pixels of the analysed image. */
export interface PixelBox {
  x: number;
  y: number;
  width: number;
  height: number;
  score: number;
}

/**
 * A second face detector: BlazeFace boxes verified and refined by FaceMesh (@vladmandic/human on the
 * same tfjs-wasm backend as face-api). It finds turned, tilted and partly hidden faces the tiny
 * detector misses; face-api still describes them (FaceAnalyzer), so descriptors stay comparable.
 */
export class BlazeFaceDetector {
  private human: any = null;
  private ready: Promise<void> | null = null;

  constructor(private readonly minScore = 0.5) {}

  /** Loads the models from node_modules (never a URL); the tfjs wasm backend must be set already. */
  load(wasmPath: string): Promise<void> {
    this.ready ??= (async () => {
      const human = new Human({
        backend: 'wasm',
        wasmPath,
        modelBasePath: `file://${HUMAN_MODELS_DIR}/`,
        debug: false,
        async: false,
        warmup: 'none',
        cacheModels: false,
        // Detection is redone on every call (skipFrames 0), so human's frame cache only costs: a difference with the last input and a copy of it, each call.
        cacheSensitivity: 0,
        filter: { enabled: false },
        gesture: { enabled: false },
        body: { enabled: false },
        hand: { enabled: false },
        object: { enabled: false },
        segmentation: { enabled: false },
        face: {
          enabled: true,
          detector: {
            modelPath: 'blazeface.json',
            rotation: false,
            maxDetected: 100,
            minConfidence: 0.3,
            minSize: 0,
            iouThreshold: 0.1,
            return: false,
            skipFrames: 0,
            skipTime: 0,
          },
          mesh: { enabled: true, keepInvalid: false },
          iris: { enabled: false },
          emotion: { enabled: false },
          attention: { enabled: false },
          description: { enabled: false },
          antispoof: { enabled: false },
          liveness: { enabled: false },
        },
      });
      await withModelFiles(HUMAN_MODELS_DIR, async () => {
        await human.init();
        await human.load();
      });
      this.human = human;
    })();
    return this.ready;
  }

  /** Faces of an int32 [height, width, 3] tensor, in pixels, scored by FaceMesh. */
  async detect(tensor: unknown): Promise<PixelBox[]> {
    if (!this.human) throw new Error('BlazeFaceDetector.load() first');
    const result = await this.human.detect(tensor);
    return (result.face as Array<{ box: [number, number, number, number]; score: number }>)
      .filter((f) => f.score >= this.minScore)
      .map((f) => ({ x: f.box[0], y: f.box[1], width: f.box[2], height: f.box[3], score: f.score }));
  }
}

/** Faces of an int32 [height, width, 3] tensor seen tile by tile (each a slice of it), in pixels of the whole (mergeTileFaces). */
export async function detectInTiles(
  detector: Pick<BlazeFaceDetector, 'detect'>,
  tensor: any,
  tiles: Box[],
): Promise<PixelBox[]> {
  const perTile = [];
  for (const tile of tiles) {
    const slice = tensor.slice([tile.y, tile.x, 0], [tile.height, tile.width, 3]);
    try {
      perTile.push({ tile, faces: await detector.detect(slice) });
    } finally {
      slice.dispose();
    }
  }
  return mergeTileFaces(perTile);
}

/**
 * human loads models with the global fetch, which cannot read files: while `work` runs, file://
 * URLs inside `dir` are served from disk; any other file:// URL is refused, other URLs go to fetch.
 */
export async function withModelFiles<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const realFetch = globalThis.fetch;
  const root = path.resolve(dir) + path.sep;
  globalThis.fetch = (async (input: any, init?: any) => {
    const url = typeof input === 'string' ? input : String(input?.url ?? input);
    if (!url.startsWith('file://')) return realFetch(input, init);
    const file = path.resolve(decodeURIComponent(new URL(url).pathname));
    if (!file.startsWith(root)) throw new Error(`model file outside ${dir}: ${file}`);
    return new Response(await readFile(file), { status: 200 });
  }) as typeof fetch;
  try {
    return await work();
  } finally {
    globalThis.fetch = realFetch;
  }
}
