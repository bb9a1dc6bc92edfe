// Small faces (the harder set's 90 px crops in 1920x1080): which second pass finds them, at what CPU cost.
// node scripts/bench/probe/small-faces.cjs  (after npm run build)
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const { FaceAnalyzer, PHOTO_FACE_OPTIONS } = require('@em/ml-worker');
const { hardFaceSet } = require('../dist/faces-hard-set.js');
const { FIX, faceCrops, selfiesOf } = require('./face-crops.cjs');
const cpuMs = (start) => { const u = process.cpuUsage(start); return (u.user + u.system) / 1000; };
(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const crops = faceCrops();
  const selfies = await selfiesOf(faces, crops);
  const small = (await hardFaceSet(crops)).filter((h) => h.kind === 'small');
  const variants = {
    now: PHOTO_FACE_OPTIONS,
    'tiny 1024': { ...PHOTO_FACE_OPTIONS, detector: 'tiny', inputSize: 1024 },
    'tiny 1280': { ...PHOTO_FACE_OPTIONS, detector: 'tiny', inputSize: 1280 },
    'tiny 1024 + blazeface': { ...PHOTO_FACE_OPTIONS, inputSize: 1024 },
  };
  for (const [label, options] of Object.entries(variants)) {
    let found = 0, matched = 0, wrong = 0;
    const start = process.cpuUsage();
    for (const h of small) {
      const got = await faces.detectAll(h.image, options);
      if (got.length) found++;
      for (const s of selfies) {
        if (!s.d || s.name === h.source) continue;
        const near = got.some((f) => { let d = 0; for (let i = 0; i < 128; i++) d += (s.d[i] - f.descriptor[i]) ** 2; return Math.sqrt(d) <= 0.56; });
        if (near && s.person === h.person) matched++;
        if (near && s.person !== h.person) wrong++;
      }
    }
    console.log(`${label}: faces found on ${found}/${small.length}, same-person selfie matches ${matched} (of ${small.length * 4}), wrong ${wrong}, CPU ${(cpuMs(start) / small.length).toFixed(0)} ms per photo`);
  }
})();
