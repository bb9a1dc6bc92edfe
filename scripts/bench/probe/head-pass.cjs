// Faces searched again in the head region of each person found without a face there: new faces, distances, CPU.
// node scripts/bench/probe/head-pass.cjs [crop side] [min person score]  (after npm run build)
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const { renderPreviews, openImage, faceQuality } = require('@em/core/media');
const { FaceAnalyzer, PHOTO_FACE_OPTIONS, PersonDetector } = require('@em/ml-worker');
const { GROUP_FACES } = require('../dist/faces-ground-truth.js');
const { hardFaceSet } = require('../dist/faces-hard-set.js');
const { FIX, faceCrops, selfiesOf } = require('./face-crops.cjs');
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');
const CROP = Number(process.argv[2] ?? 256);
const MIN_PERSON = Number(process.argv[3] ?? 0.3);
const dist = (a, b) => { let d = 0; for (let i = 0; i < 128; i++) d += (a[i] - b[i]) ** 2; return Math.sqrt(d); };
const cpuMs = (s) => { const u = process.cpuUsage(s); return (u.user + u.system) / 1000; };

async function headPass(faces, image, found, people) {
  const { data, info } = await openImage(image).rotate().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const W = info.width, H = info.height;
  const tensor = faceapi.tf.tensor3d(data, [H, W, 3], 'int32');
  const out = [];
  let searched = 0;
  try {
    for (const p of people.filter((p) => p.score >= MIN_PERSON)) {
      const pw = p.width * W, ph = p.height * H;
      const side = Math.min(pw, ph);
      const cx = (p.x + p.width / 2) * W;
      const left = Math.max(0, Math.round(cx - side / 2)), top = Math.max(0, Math.round(p.y * H - 0.1 * side));
      const rw = Math.min(W - left, Math.round(side)), rh = Math.min(H - top, Math.round(side * 1.0));
      if (rw < 16 || rh < 16) continue;
      const inside = (f) => { const fx = (f.box.x + f.box.width / 2) * W, fy = (f.box.y + f.box.height / 2) * H; return fx >= left && fx <= left + rw && fy >= top && fy <= top + rh; };
      if (found.some(inside) || out.some(inside)) continue;
      searched++;
      const scale = CROP / Math.max(rw, rh);
      const cw = Math.round(rw * scale), ch = Math.round(rh * scale);
      const crop = faceapi.tf.tidy(() => faceapi.tf.image.resizeBilinear(tensor.slice([top, left, 0], [rh, rw, 3]), [ch, cw]));
      try {
        const got = await faceapi.detectAllFaces(crop, new faceapi.TinyFaceDetectorOptions({ inputSize: 224, scoreThreshold: 0.5 })).withFaceLandmarks();
        for (const r of got) {
          const b = r.detection.box;
          const box = { x: (left + b.x / scale) / W, y: (top + b.y / scale) / H, width: b.width / scale / W, height: b.height / scale / H };
          const [d] = await faces.describe(crop, [{ landmarks: r.landmarks }], true);
          out.push({ box, score: r.detection.score, descriptor: d, widthPx: b.width / scale });
        }
      } finally { crop.dispose(); }
    }
  } finally { tensor.dispose(); }
  return { out, searched };
}

(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const persons = new PersonDetector();
  await persons.load();
  const crops = faceCrops();
  const selfies = (await selfiesOf(faces, crops)).filter((s) => s.d);
  const rgba = async (buf) => { const { data, info } = await openImage(buf).rotate().ensureAlpha().raw().toBuffer({ resolveWithObject: true }); return { data, width: info.width, height: info.height }; };
  let cpuPerson = 0, cpuHead = 0, n = 0;
  const report = async (label, image, labelOf) => {
    const found = await faces.detectAll(image, PHOTO_FACE_OPTIONS);
    let c = process.cpuUsage();
    const people = await persons.detect(await rgba(image));
    cpuPerson += cpuMs(c);
    c = process.cpuUsage();
    const { out, searched } = await headPass(faces, image, found, people);
    cpuHead += cpuMs(c); n++;
    const lines = out.map((f) => {
      const who = labelOf ? labelOf(f.box) : '?';
      const near = selfies.map((s) => ({ p: s.person, d: dist(s.d, f.descriptor) })).sort((a, b) => a.d - b.d);
      const same = near.filter((x) => x.p === who).map((x) => x.d.toFixed(3));
      const wrong = near.find((x) => x.p !== who);
      return `    new face w=${f.widthPx.toFixed(0)} score ${f.score.toFixed(2)} who=${who} same [${same.join(' ')}] nearest-wrong ${wrong ? wrong.d.toFixed(3) + ' ' + wrong.p : '-'}`;
    });
    if (out.length || !labelOf) console.log(`${label}: faces ${found.length}, people ${people.filter((p) => p.score >= MIN_PERSON).length}/${people.length}, searched ${searched}, new ${out.length}\n${lines.join('\n')}`);
    return out.length;
  };
  for (const f of fs.readdirSync('/work/shared/fixtures/bibs').filter((f) => /jpe?g$/i.test(f))) {
    const { plainLarge } = await renderPreviews(fs.readFileSync(path.join('/work/shared/fixtures/bibs', f)));
    await report(`race ${f}`, plainLarge.buffer, null);
  }
  for (const [shot, labels] of Object.entries(GROUP_FACES)) {
    const original = fs.readFileSync(path.join(FIX, 'group', shot));
    const meta = await openImage(original).metadata();
    const { plainLarge } = await renderPreviews(original);
    const labelOf = (b) => (labels.find(([, x, y]) => x / meta.width >= b.x && x / meta.width <= b.x + b.width && y / meta.height >= b.y && y / meta.height <= b.y + b.height) ?? ['none'])[0];
    await report(`group ${shot}`, plainLarge.buffer, labelOf);
  }
  let hardNew = {};
  for (const h of await hardFaceSet(crops)) {
    const k = await report(`${h.kind} ${h.source}`, h.image, () => h.person);
    hardNew[h.kind] = (hardNew[h.kind] ?? 0) + (k ? 1 : 0);
  }
  console.log('hard photos with a new face', JSON.stringify(hardNew));
  console.log(`CPU per image: person detector ${(cpuPerson / n).toFixed(0)} ms, head pass ${(cpuHead / n).toFixed(0)} ms`);
})();
