// Selfie descriptors averaged over slightly moved and scaled alignment boxes (test-time augmentation):
// do same-person distances to the photo faces shrink more than wrong-person ones?
// node scripts/bench/probe/selfie-tta.cjs  (after npm run build)
require('reflect-metadata');
const path = require('node:path'); const fs = require('node:fs');
const sharp = require('sharp');
const { renderPreviews, openImage } = require('@em/core/media');
const { FaceAnalyzer, PHOTO_FACE_OPTIONS } = require('@em/ml-worker');
const { GROUP_FACES } = require('../dist/faces-ground-truth.js');
const { FIX, faceCrops } = require('./face-crops.cjs');
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');
const dist = (a, b) => { let d = 0; for (let i = 0; i < 128; i++) d += (a[i] - b[i]) ** 2; return Math.sqrt(d); };
const VARIANTS = {
  base: [[1, 0, 0]],
  scales: [[1, 0, 0], [0.92, 0, 0], [1.08, 0, 0]],
  shifts: [[1, 0, 0], [1, 0.04, 0], [1, -0.04, 0], [1, 0, 0.04], [1, 0, -0.04]],
  both: [[1, 0, 0], [0.92, 0, 0], [1.08, 0, 0], [1, 0.04, 0], [1, -0.04, 0], [1, 0, 0.04], [1, 0, -0.04]],
};
async function describeAll(tensor, rects) {
  const crops = await faceapi.extractFaceTensors(tensor, rects);
  const out = [];
  for (const c of crops) {
    const a = await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(c);
    const f = faceapi.tf.reverse(c, 1);
    const b = await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(f);
    f.dispose(); c.dispose();
    out.push(a.map((v, i) => (v + b[i]) / 2));
  }
  return out;
}
async function selfieVariants(image) {
  const meta = await sharp(image).metadata();
  const margin = Math.round(Math.max(meta.width, meta.height) * 0.25);
  const { data, info } = await sharp(image).rotate().extend({ top: margin, bottom: margin, left: margin, right: margin, background: { r: 128, g: 128, b: 128 } }).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const tensor = faceapi.tf.tensor3d(data, [info.height, info.width, 3], 'int32');
  try {
    let found = await faceapi.detectAllFaces(tensor, new faceapi.TinyFaceDetectorOptions({ inputSize: 224, scoreThreshold: 0.5 })).withFaceLandmarks();
    if (!found.length) found = await faceapi.detectAllFaces(tensor, new faceapi.SsdMobilenetv1Options({ minConfidence: 0.5 })).withFaceLandmarks();
    if (!found.length) return null;
    const best = found.sort((a, b) => b.detection.box.area - a.detection.box.area)[0];
    const r = best.landmarks.align(null, { useDlibAlignment: true });
    const out = {};
    for (const [name, list] of Object.entries(VARIANTS)) {
      const rects = list.map(([s, dx, dy]) => {
        const w = r.width * s, h = r.height * s;
        const x = Math.max(0, r.x + r.width / 2 - w / 2 + dx * r.width), y = Math.max(0, r.y + r.height / 2 - h / 2 + dy * r.height);
        return new faceapi.Rect(x, y, Math.min(w, info.width - x), Math.min(h, info.height - y));
      });
      const ds = await describeAll(tensor, rects);
      out[name] = ds[0].map((_, i) => ds.reduce((s, d) => s + d[i], 0) / ds.length);
    }
    return out;
  } finally { tensor.dispose(); }
}
(async () => {
  const faces = new FaceAnalyzer(); await faces.load();
  const crops = faceCrops();
  const selfies = [];
  for (const c of crops) selfies.push({ ...c, v: await selfieVariants(c.image), photo: (await faces.embedSelfie(c.image)).descriptor });
  const rows = []; // photo faces: {person, d, photo}
  for (const s of selfies) if (s.photo) rows.push({ person: s.person, d: s.photo, photo: s.name });
  for (const [shot, labels] of Object.entries(GROUP_FACES)) {
    const original = fs.readFileSync(path.join(FIX, 'group', shot));
    const meta = await openImage(original).metadata();
    const { plainLarge } = await renderPreviews(original);
    for (const f of await faces.detectAll(plainLarge.buffer, { ...PHOTO_FACE_OPTIONS, personHeads: false })) {
      const l = labels.find(([, x, y]) => x / meta.width >= f.box.x && x / meta.width <= f.box.x + f.box.width && y / meta.height >= f.box.y && y / meta.height <= f.box.y + f.box.height);
      rows.push({ person: l ? l[0] : 'none', d: f.descriptor, photo: shot, v: f.descriptorVersion });
    }
  }
  for (const name of Object.keys(VARIANTS)) {
    let missCrop = 0, missGroup = 0, wrong = 0, nearestWrong = 9; const sameD = [];
    for (const s of selfies) {
      if (!s.v) continue;
      const q = s.v[name];
      for (const r of rows) {
        if (r.photo === s.name) continue;
        const d = dist(q, r.d);
        const limit = r.v === 3 ? 0.52 : 0.56;
        if (r.person === s.person) { sameD.push(d); if (d > limit) r.photo.includes('/') ? missCrop++ : missGroup++; }
        else { nearestWrong = Math.min(nearestWrong, d - limit + 0.56); if (d <= limit) wrong++; }
      }
    }
    console.log(`${name}: misses crops ${missCrop} group ${missGroup}, wrong ${wrong}, nearest wrong ${nearestWrong.toFixed(3)}, mean same ${(sameD.reduce((a, b) => a + b, 0) / sameD.length).toFixed(4)}`);
  }
})();
