// Every face the worker finds on the face fixtures, the group shots and the harder set, with its quality
// signals and descriptor, to /tmp/faces17/faces.json (issue 17: tune the quality rule offline).
// node scripts/bench/probe/dump-faces.cjs  (after npm run build)
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const { renderPreviews } = require('@em/core/media');
const { FaceAnalyzer, PHOTO_FACE_OPTIONS } = require('@em/ml-worker');
const { hardFaceSet } = require('../dist/faces-hard-set.js');
const { GROUP_FACES } = require('../dist/faces-ground-truth.js');
const { FIX, faceCrops, selfiesOf } = require('./face-crops.cjs');
const OUT = process.argv[2] ?? '/tmp/faces17/faces.json';
(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const crops = faceCrops();
  const out = { selfies: [], photos: [] };
  const face = (f) => ({ box: f.box, score: f.score, version: f.descriptorVersion, signals: f.signals, d: Array.from(f.descriptor) });
  for (const c of crops) {
    const s = await faces.embedSelfie(c.image);
    out.selfies.push({ name: c.name, person: c.person, d: s.descriptor ? Array.from(s.descriptor) : null, signals: s.signals ?? null });
  }
  for (const [shot, labels] of Object.entries(GROUP_FACES)) {
    const { plainLarge } = await renderPreviews(fs.readFileSync(path.join(FIX, 'group', shot)));
    out.photos.push({ name: shot, kind: 'group', people: labels.map(([p]) => p), faces: (await faces.detectAll(plainLarge.buffer, PHOTO_FACE_OPTIONS)).map(face) });
  }
  for (const h of await hardFaceSet(crops)) {
    out.photos.push({ name: `${h.kind}:${h.source}`, kind: h.kind, source: h.source, people: [h.person], faces: (await faces.detectAll(h.image, PHOTO_FACE_OPTIONS)).map(face) });
  }
  fs.writeFileSync(OUT, JSON.stringify(out));
  console.log('wrote', OUT, out.photos.length, 'photos');
})();
