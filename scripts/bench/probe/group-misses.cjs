// Which labelled group-shot faces are missed, and why: not detected (by which options) or too far.
// node scripts/bench/probe/group-misses.cjs  (after npm run build)
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const { renderPreviews, maxDistanceFor, faceQuality, openImage } = require('@em/core/media');
const { FaceAnalyzer, PHOTO_FACE_OPTIONS } = require('@em/ml-worker');
const { GROUP_FACES } = require('../dist/faces-ground-truth.js');
const { FIX, faceCrops, selfiesOf } = require('./face-crops.cjs');
const dist = (a, b) => { let d = 0; for (let i = 0; i < 128; i++) d += (a[i] - b[i]) ** 2; return Math.sqrt(d); };
(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const selfies = await selfiesOf(faces, faceCrops());
  const variants = { now: PHOTO_FACE_OPTIONS, 'min 24': { ...PHOTO_FACE_OPTIONS, minFaceWidth: 24 }, 'tiny 1024 min 24': { ...PHOTO_FACE_OPTIONS, inputSize: 1024, minFaceWidth: 24 } };
  for (const [shot, labels] of Object.entries(GROUP_FACES)) {
    const original = fs.readFileSync(path.join(FIX, 'group', shot));
    const meta = await openImage(original).metadata();
    const { plainLarge } = await renderPreviews(original);
    const lm = await openImage(plainLarge.buffer).metadata();
    console.log(`== ${shot} ${meta.width}x${meta.height} large ${lm.width}x${lm.height}`);
    for (const [label, options] of Object.entries(variants)) {
      const got = await faces.detectAll(plainLarge.buffer, options);
      for (const [person, x, y] of labels) {
        const rx = x / meta.width, ry = y / meta.height;
        const f = got.find((g) => rx >= g.box.x && rx <= g.box.x + g.box.width && ry >= g.box.y && ry <= g.box.y + g.box.height);
        if (!f) { console.log(`  ${label}: ${person} NOT DETECTED`); continue; }
        const limit = maxDistanceFor(f.descriptorVersion, 0.56, faceQuality(f.signals));
        const ds = selfies.filter((s) => s.person === person && s.d).map((s) => dist(s.d, f.descriptor));
        const wrongs = selfies.filter((s) => s.person !== person && s.d).map((s) => dist(s.d, f.descriptor));
        const missed = ds.filter((d) => d > limit).length;
        console.log(`  ${label}: ${person} w=${(f.box.width * lm.width).toFixed(0)}px v${f.descriptorVersion} q=${faceQuality(f.signals).toFixed(2)} limit ${limit.toFixed(3)} same ${ds.map((d) => d.toFixed(3)).join(' ')} missed ${missed} nearest-wrong ${Math.min(...wrongs).toFixed(3)}`);
      }
      const extra = got.filter((g) => !labels.some(([, x, y]) => { const rx = x / meta.width, ry = y / meta.height; return rx >= g.box.x && rx <= g.box.x + g.box.width && ry >= g.box.y && ry <= g.box.y + g.box.height; }));
      for (const g of extra) console.log(`  ${label}: unlabelled face w=${(g.box.width * lm.width).toFixed(0)} at ${(g.box.x * meta.width).toFixed(0)},${(g.box.y * meta.height).toFixed(0)} v${g.descriptorVersion}`);
    }
  }
})();
