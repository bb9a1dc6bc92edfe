// CPU of the photo path on the harder face set and the group shots, and the share of it refineFace takes (issue 17).
// node scripts/bench/probe/refine-cost.cjs  (after npm run build)
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const { renderPreviews } = require('@em/core/media');
const { FaceAnalyzer, PHOTO_FACE_OPTIONS } = require('@em/ml-worker');
const refine = require(path.join(path.dirname(require.resolve('@em/ml-worker/package.json')), 'dist/faces/refine-face.js'));
const { hardFaceSet } = require('../dist/faces-hard-set.js');
const { FIX, faceCrops, selfiesOf } = require('./face-crops.cjs');
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
(async () => {
  let refineMs = 0, refineCalls = 0;
  const real = refine.refineFace;
  refine.refineFace = async (...args) => { const t = cpu(); try { return await real(...args); } finally { refineMs += cpu() - t; refineCalls++; } };
  const faces = new FaceAnalyzer();
  await faces.load();
  const crops = faceCrops();
  const images = [];
  for (const shot of fs.readdirSync(path.join(FIX, 'group')).sort()) images.push((await renderPreviews(fs.readFileSync(path.join(FIX, 'group', shot)))).plainLarge.buffer);
  for (const h of await hardFaceSet(crops)) images.push(h.image);
  await faces.detectAll(images[0], PHOTO_FACE_OPTIONS);
  refineMs = 0; refineCalls = 0;
  const t = cpu();
  for (const image of images) await faces.detectAll(image, PHOTO_FACE_OPTIONS);
  const total = cpu() - t;
  console.log(`${images.length} photos: face path ${(total / images.length).toFixed(0)} ms CPU per photo; refineFace ${refineCalls} calls, ${(refineMs / images.length).toFixed(1)} ms CPU per photo (${(refineMs / Math.max(1, refineCalls)).toFixed(0)} ms per call)`);
})();
