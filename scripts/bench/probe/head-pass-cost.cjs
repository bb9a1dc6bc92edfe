// CPU of the face step per race photo without and with the head pass, interleaved (A B A B ...) so that the
// machine's load falls on both alike. node scripts/bench/probe/head-pass-cost.cjs [rounds]  (after npm run build)
require('reflect-metadata');
const path = require('node:path'); const fs = require('node:fs');
const { renderPreviews, openImage } = require('@em/core/media');
const { FaceAnalyzer, PHOTO_FACE_OPTIONS, PersonDetector, OCR_MAX_SIDE } = require('@em/ml-worker');
const cpuMs = (s) => { const u = process.cpuUsage(s); return (u.user + u.system) / 1000; };
const ROUNDS = Number(process.argv[2] ?? 3);
(async () => {
  const faces = new FaceAnalyzer(); await faces.load();
  const persons = new PersonDetector(); await persons.load();
  const photos = [];
  for (const name of fs.readdirSync('/work/shared/fixtures/bibs').filter((f) => /jpe?g$/i.test(f))) {
    const orig = fs.readFileSync(path.join('/work/shared/fixtures/bibs', name));
    const { data, info } = await openImage(orig).rotate().resize(OCR_MAX_SIDE, OCR_MAX_SIDE, { fit: 'inside', withoutEnlargement: true }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    photos.push({ name, people: await persons.detect({ data, width: info.width, height: info.height }), large: (await renderPreviews(orig)).plainLarge.buffer });
  }
  const without = { ...PHOTO_FACE_OPTIONS, personHeads: false };
  for (const p of photos) await faces.detectAll(p.large, PHOTO_FACE_OPTIONS, p.people); // warm
  let a = 0, b = 0, fa = 0, fb = 0;
  for (let r = 0; r < ROUNDS; r++) {
    for (const p of photos) {
      let c = process.cpuUsage();
      fa += (await faces.detectAll(p.large, without, p.people)).length;
      a += cpuMs(c);
      c = process.cpuUsage();
      fb += (await faces.detectAll(p.large, PHOTO_FACE_OPTIONS, p.people)).length;
      b += cpuMs(c);
    }
  }
  const n = ROUNDS * photos.length;
  console.log(`face step CPU per race photo: without head pass ${(a / n).toFixed(0)} ms (${fa / ROUNDS} faces), with ${(b / n).toFixed(0)} ms (${fb / ROUNDS} faces): +${((b - a) / n).toFixed(0)} ms`);
})();
// HEAD_RULES='{"cropSide":160,"inputSize":160}' tries other rules (the defaults are changed in place).
if (process.env.HEAD_RULES) Object.assign(require('../../../ml-worker/dist/faces/head-regions.js').DEFAULT_HEAD_REGION_RULES, JSON.parse(process.env.HEAD_RULES));
