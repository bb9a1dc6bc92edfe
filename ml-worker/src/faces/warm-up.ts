import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { FaceAnalyzer } from './face-analyzer';

/** A photo with a face that ships with face-api (its demo folder); the warm-up does without it when absent. */
const SAMPLE_FACE = (() => {
  try {
    return path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg');
  } catch {
    return null;
  }
})();

/**
 * Walks every path of selfie embedding once, before the first participant's selfie: the first use
 * of each model costs far more than the next (tfjs-wasm grows its memory and sets up its kernels;
 * measured +200-250 ms CPU for each detector), and a selfie that needs the fallback detector would
 * pay it inside a search. A blank image takes the no-face path (both detectors, both margins); a
 * sample photo the face path (landmarks, descriptor and its mirror). Failures only cost the warm-up.
 */
export async function warmUpSelfies(faces: Pick<FaceAnalyzer, 'embedSelfie'>): Promise<void> {
  const blank = await sharp({
    create: { width: 256, height: 256, channels: 3, background: { r: 128, g: 128, b: 128 } },
  })
    .png()
    .toBuffer();
  const images = [blank, ...(SAMPLE_FACE && existsSync(SAMPLE_FACE) ? [await readFile(SAMPLE_FACE)] : [])];
  for (const image of images) await faces.embedSelfie(image).catch(() => undefined);
}
