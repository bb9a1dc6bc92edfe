import path from 'node:path';

/**
 * The model files that ship inside @vladmandic/human (BlazeFace, FaceMesh, CenterNet, ...), read from
 * disk: nothing is downloaded. Its package.json `exports` lack the './' prefix, so its files resolve
 * only by path.
 */
export const HUMAN_DIST_DIR = path.dirname(require.resolve('@vladmandic/human'));
export const HUMAN_MODELS_DIR = path.join(HUMAN_DIST_DIR, '..', 'models');
