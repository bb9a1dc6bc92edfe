// Which faces the head pass adds on the race photos, their quality, and which right group-shot matches
// they make the stranger check drop (nearerToStranger with them as the stranger).
// node scripts/bench/probe/head-strangers.cjs  (after npm run build)
require('reflect-metadata');
const path = require('node:path'); const fs = require('node:fs');
const { renderPreviews, openImage, faceQuality, maxDistanceFor, STRANGER_CHECK_FROM, STRANGER_DISTANCE } = require('@em/core/media');
const { FaceAnalyzer, PHOTO_FACE_OPTIONS, PersonDetector, OCR_MAX_SIDE } = require('@em/ml-worker');
const { GROUP_FACES } = require('../dist/faces-ground-truth.js');
const { FIX, faceCrops, selfiesOf } = require('./face-crops.cjs');
const dist = (a, b) => { let d = 0; for (let i = 0; i < 128; i++) d += (a[i] - b[i]) ** 2; return Math.sqrt(d); };
(async () => {
  const faces = new FaceAnalyzer(); await faces.load();
  const persons = new PersonDetector(); await persons.load();
  const selfies = (await selfiesOf(faces, faceCrops())).filter((s) => s.d);
  const group = [];
  for (const [shot, labels] of Object.entries(GROUP_FACES)) {
    const original = fs.readFileSync(path.join(FIX, 'group', shot));
    const meta = await openImage(original).metadata();
    const { plainLarge } = await renderPreviews(original);
    for (const f of await faces.detectAll(plainLarge.buffer, { ...PHOTO_FACE_OPTIONS, personHeads: false })) {
      const l = labels.find(([, x, y]) => x / meta.width >= f.box.x && x / meta.width <= f.box.x + f.box.width && y / meta.height >= f.box.y && y / meta.height <= f.box.y + f.box.height);
      group.push({ shot, person: l ? l[0] : 'none', f });
    }
  }
  for (const name of fs.readdirSync('/work/shared/fixtures/bibs').filter((f) => /jpe?g$/i.test(f))) {
    const orig = fs.readFileSync(path.join('/work/shared/fixtures/bibs', name));
    const { data, info } = await openImage(orig).rotate().resize(OCR_MAX_SIDE, OCR_MAX_SIDE, { fit: 'inside', withoutEnlargement: true }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const people = await persons.detect({ data, width: info.width, height: info.height });
    const { plainLarge } = await renderPreviews(orig);
    const before = await faces.detectAll(plainLarge.buffer, { ...PHOTO_FACE_OPTIONS, personHeads: false });
    const after = await faces.detectAll(plainLarge.buffer, PHOTO_FACE_OPTIONS, people);
    const added = after.filter((a) => !before.some((b) => Math.abs(a.box.x - b.box.x) < 0.005 && Math.abs(a.box.y - b.box.y) < 0.005));
    for (const a of added) {
      const nearestSelfie = Math.min(...selfies.map((s) => dist(s.d, a.descriptor)));
      const drops = [];
      for (const g of group) {
        const dg = dist(g.f.descriptor, a.descriptor);
        for (const s of selfies.filter((s) => s.person === g.person)) {
          const d = dist(s.d, g.f.descriptor);
          const limit = maxDistanceFor(g.f.descriptorVersion, 0.56, faceQuality(g.f.signals));
          if (d > STRANGER_CHECK_FROM && d <= limit && dg < d && dist(s.d, a.descriptor) > STRANGER_DISTANCE) drops.push(`${s.name}->${g.shot}:${g.person} ${d.toFixed(3)} (race face ${dg.toFixed(3)} from it)`);
        }
      }
      console.log(`${name}: added w=${(a.box.width * 1600).toFixed(0)} q=${faceQuality(a.signals).toFixed(2)} eye=${a.signals.eyeDistancePx.toFixed(0)} yaw=${a.signals.yaw.toFixed(2)} nearest selfie ${nearestSelfie.toFixed(3)}; drops: ${drops.join('; ') || 'none'}`);
    }
  }
})();
