// The bench's selfie accuracy rows for the worker's photo path only (no tiny-only comparison, no latency).
// node scripts/bench/probe/accuracy.cjs  (after npm run build)
require('reflect-metadata');
const path = require('node:path');
const { FaceAnalyzer } = require('@em/ml-worker');
const { selfieAccuracy } = require('../dist/face-search.js');
(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const rows = [];
  await selfieAccuracy(rows, faces, path.resolve(__dirname, '../../../../shared/fixtures'));
  for (const r of rows) console.log(`${r.figure}: ${r.value}\n    ${r.how}`);
})();
