// Does BlazeFace find the turned heads of the audience frame when it sees the frame in tiles (each tile squarer and larger in its 256 px input)?
// node scripts/bench/probe/turned-tiles.cjs  (after npm run build)
require('reflect-metadata');
const path = require('node:path');
const { FaceAnalyzer } = require('@em/ml-worker');
const { BlazeFaceDetector } = require('../../../ml-worker/dist/faces/blazeface-detector.js');
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');
const { composeFrame, TURNED_SHOT } = require('./turned-shot.cjs');
const WASM = `${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`;
const TILINGS = {
  full: [[0, 0, 1280, 720]],
  two: [[0, 0, 720, 720], [560, 0, 720, 720]],
  three: [[0, 0, 480, 480], [400, 0, 480, 480], [800, 0, 480, 480], [0, 240, 480, 480], [400, 240, 480, 480], [800, 240, 480, 480]],
  twoByTwo: [[0, 0, 720, 400], [560, 0, 720, 400], [0, 320, 720, 400], [560, 320, 720, 400]],
};
(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const blaze = new BlazeFaceDetector();
  await blaze.load(WASM);
  for (const scale of [0.5, 0.6, 0.8]) {
    const rgb = await (await composeFrame(TURNED_SHOT, scale)).removeAlpha().raw().toBuffer();
    const tensor = faceapi.tf.tensor3d(rgb, [720, 1280, 3], 'int32');
    for (const [name, tiles] of Object.entries(TILINGS)) {
      const t = process.hrtime.bigint();
      const found = [];
      for (const [x, y, w, h] of tiles) {
        const tile = faceapi.tf.slice(tensor, [y, x, 0], [h, w, 3]);
        for (const b of await blaze.detect(tile)) found.push(`x=${(b.x + x).toFixed(0)} y=${(b.y + y).toFixed(0)} w=${b.width.toFixed(0)} s=${b.score.toFixed(2)}`);
        tile.dispose();
      }
      const msTaken = Number(process.hrtime.bigint() - t) / 1e6;
      console.log(`scale ${scale} ${name} ${msTaken.toFixed(0)} ms: ${found.join(' | ')}`);
    }
    tensor.dispose();
  }
})();
