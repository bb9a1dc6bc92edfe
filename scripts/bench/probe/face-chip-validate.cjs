// Validation probe (face-chip-validate.cjs, from face-chip-align.cjs): dlib chips p0.2/p0.25 with the race photos as strangers.
// Probe: does levelling the eyes (rotating the chip around the eye centre, as dlib's get_face_chips does)
// and/or another chip margin give better descriptors than face-api's axis-aligned dlib box?
// Detection is the product's (FaceAnalyzer, built); only the descriptor step is replaced
// (describeFaces patched) so every variant is computed from the same landmarks of the same faces.
// node scripts/bench/probe/face-chip-align.cjs   (HARD=1 adds the harder set as photos: wrong-person check only);
// then node scripts/bench/probe/face-chip-analyse.cjs (figures of 2026-11-24: docs/benchmarks.md, "Face chip alignment")
const req = require;
req('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const { renderPreviews, openImage, maxDistanceFor, faceQuality, FaceMatrix, nearerToStranger, percentToDistance, DEFAULT_MATCH_PERCENT } = req('@em/core/media');
const { FaceAnalyzer, PHOTO_FACE_OPTIONS } = req('@em/ml-worker');
const { GROUP_FACES } = req('../dist/faces-ground-truth.js');
const faceapi = req('@vladmandic/face-api/dist/face-api.node-wasm.js');
const FIX = path.resolve(__dirname, '../../../../shared/fixtures/faces');
const OUT = path.join(require('node:os').tmpdir(), 'face-chip-align');
fs.mkdirSync(OUT, { recursive: true });
const tf = faceapi.tf;

const VARIANTS = { 'dlib p0.2': { dlib: 0.2 }, 'dlib p0.25': { dlib: 0.25 } };
// dlib's mean face shape (landmarks 17..67, unit square), from dlib/image_transforms/interpolation.h
const MEAN_X = [0.000213256, 0.0752622, 0.18113, 0.29077, 0.393397, 0.586856, 0.689483, 0.799124, 0.904991, 0.98004, 0.490127, 0.490127, 0.490127, 0.490127, 0.36688, 0.426036, 0.490127, 0.554217, 0.613373, 0.121737, 0.187122, 0.265825, 0.334606, 0.260918, 0.182743, 0.645647, 0.714428, 0.793132, 0.858516, 0.79751, 0.719335, 0.254149, 0.340985, 0.428858, 0.490127, 0.551395, 0.639268, 0.726104, 0.642159, 0.556721, 0.490127, 0.423532, 0.338094, 0.290379, 0.428096, 0.490127, 0.552157, 0.689874, 0.553364, 0.490127, 0.42689];
const MEAN_Y = [0.106454, 0.038915, 0.0187482, 0.0344891, 0.0773906, 0.0773906, 0.0344891, 0.0187482, 0.038915, 0.106454, 0.203352, 0.307009, 0.409805, 0.515625, 0.587326, 0.609345, 0.628106, 0.609345, 0.587326, 0.216423, 0.178758, 0.179852, 0.231733, 0.245099, 0.244077, 0.231733, 0.179852, 0.178758, 0.216423, 0.244077, 0.245099, 0.780233, 0.745405, 0.727388, 0.742578, 0.727388, 0.745405, 0.780233, 0.864805, 0.902192, 0.909281, 0.902192, 0.864805, 0.784792, 0.778746, 0.785343, 0.778746, 0.784792, 0.824182, 0.831803, 0.824182];

/** Least-squares similarity transform (chip -> image) of dlib's mean face onto landmarks 17-67: image = [a -b; b a] chip + t. */
function dlibTransform(positions, padding) {
  const from = MEAN_X.map((x, i) => ({ x: ((padding + x) / (2 * padding + 1)) * CHIP, y: ((padding + MEAN_Y[i]) / (2 * padding + 1)) * CHIP }));
  const to = positions.slice(17, 68);
  const mf = centre(from), mt = centre(to);
  let sxx = 0, sxy = 0, nf = 0;
  for (let i = 0; i < from.length; i++) {
    const ax = from[i].x - mf.x, ay = from[i].y - mf.y, bx = to[i].x - mt.x, by = to[i].y - mt.y;
    sxx += ax * bx + ay * by; sxy += ax * by - ay * bx; nf += ax * ax + ay * ay;
  }
  const a = sxx / nf, b = sxy / nf;
  return { a, b, tx: mt.x - (a * mf.x - b * mf.y), ty: mt.y - (b * mf.x + a * mf.y) };
}
const CHIP = 150;
let sampleCpuUs = 0, sampleCount = 0, rotatedAngles = [];

const centre = (pts) => ({ x: pts.reduce((s, p) => s + p.x, 0) / pts.length, y: pts.reduce((s, p) => s + p.y, 0) / pts.length });

/** A 150x150 RGB chip (float, 0..255) sampled bilinearly from the image: face-api's dlib box, in the frame levelled on the eyes when `rotate`. */
function chip(pixels, width, height, landmarks, { rotate, scale, dlib }) {
  const t0 = process.cpuUsage();
  if (dlib !== undefined) {
    const { a, b, tx, ty } = dlibTransform(landmarks.positions, dlib);
    return sample(pixels, width, height, (u, v) => [a * u - b * v + tx, b * u + a * v + ty], t0);
  }
  const le = centre(landmarks.getLeftEye()), re = centre(landmarks.getRightEye()), mo = centre(landmarks.getMouth());
  const theta = rotate ? Math.atan2(re.y - le.y, re.x - le.x) : 0;
  if (rotate && scale === 1) rotatedAngles.push((theta * 180) / Math.PI);
  const c = { x: (le.x + re.x) / 2, y: (le.y + re.y) / 2 };
  const cos = Math.cos(theta), sin = Math.sin(theta);
  // points in the levelled frame (rotated by -theta around c)
  const lev = (p) => ({ x: c.x + cos * (p.x - c.x) + sin * (p.y - c.y), y: c.y - sin * (p.x - c.x) + cos * (p.y - c.y) });
  const [l, r, m] = [le, re, mo].map(lev);
  const eyeToMouth = (Math.hypot(m.x - l.x, m.y - l.y) + Math.hypot(m.x - r.x, m.y - r.y)) / 2;
  const size = Math.floor(eyeToMouth / 0.45) * scale;
  const ref = centre([l, r, m]);
  const bx = ref.x - 0.5 * size, by = ref.y - 0.43 * size;
  const s = size / CHIP;
  return sample(pixels, width, height, (u, v) => {
    const qx = bx + u * s - c.x, qy = by + v * s - c.y;
    return [c.x + cos * qx - sin * qy, c.y + sin * qx + cos * qy];
  }, t0);
}

/** Bilinear 150x150 chip; `at(u, v)` maps a chip pixel's centre to image coordinates (pixel corners at integers). */
function sample(pixels, width, height, map, t0) {
  const out = new Float32Array(CHIP * CHIP * 3);
  for (let v = 0; v < CHIP; v++) {
    for (let u = 0; u < CHIP; u++) {
      const [mx, my] = map(u + 0.5, v + 0.5);
      const x = mx - 0.5, y = my - 0.5;
      const x0 = Math.floor(x), y0 = Math.floor(y), fx = x - x0, fy = y - y0;
      const o = (v * CHIP + u) * 3;
      for (let k = 0; k < 3; k++) {
        const at = (xx, yy) => (xx < 0 || yy < 0 || xx >= width || yy >= height ? 0 : pixels[(yy * width + xx) * 3 + k]);
        out[o + k] = (at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx) * (1 - fy) + (at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx) * fy;
      }
    }
  }
  const d = process.cpuUsage(t0);
  sampleCpuUs += d.user + d.system;
  sampleCount++;
  return tf.tensor3d(out, [CHIP, CHIP, 3], 'float32');
}

async function mirrored(crop) {
  const a = await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(crop);
  const f = tf.reverse(crop, 1);
  const b = await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(f);
  f.dispose();
  return Float32Array.from(a, (v, i) => (v + b[i]) / 2);
}

let dumped = 0;
const faces = new FaceAnalyzer();
// face-analyzer.js calls describeFaces through its module's exports object: patched there.
const describeModule = req(path.join(path.dirname(req.resolve('@em/ml-worker')), 'faces/describe-faces.js'));
const original = describeModule.describeFaces;
describeModule.describeFaces = async function (tensor, list, isMirrored) {
  const base = await original(tensor, list, isMirrored);
  if (list.length === 0) return base;
  const [height, width] = tensor.shape;
  const pixels = await tensor.data();
  for (let i = 0; i < list.length; i++) {
    const variants = {};
    for (const [name, spec] of Object.entries(VARIANTS)) {
      const c = chip(pixels, width, height, list[i], spec);
      if (process.env.DUMP && dumped < 12) {
        dumped++;
        const raw = Buffer.from(Uint8Array.from(await c.data(), (x) => Math.max(0, Math.min(255, Math.round(x)))));
        await req('sharp')(raw, { raw: { width: CHIP, height: CHIP, channels: 3 } }).png().toFile(`${OUT}/chip-${dumped}-${name.replace(/ /g, '')}.png`);
      }
      try { variants[name] = await mirrored(c); } finally { c.dispose(); }
    }
    base[i].variants = variants;
  }
  return base;
};

const dist = (a, b) => { let d = 0; for (let i = 0; i < 128; i++) d += (a[i] - b[i]) ** 2; return Math.sqrt(d); };
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

(async () => {
  await faces.load();
  const cpu0 = process.cpuUsage();
  const photos = []; // { name, kind, people:Set, source? }
  const rows = []; // { photo, version, quality, desc: {variant: Float32Array}, label }
  const selfies = []; // { name, person, desc }
  const people = fs.readdirSync(FIX).filter((p) => p !== 'group').sort();
  const crops = [];
  for (const person of people) {
    for (const file of fs.readdirSync(path.join(FIX, person)).filter((f) => /\.(png|jpe?g)$/i.test(f)).sort()) {
      const name = `${person}/${file}`;
      const image = fs.readFileSync(path.join(FIX, person, file));
      crops.push({ person, name, image });
      const { descriptor, quality } = await faces.embedSelfie(image);
      if (!descriptor) { selfies.push({ name, person, desc: null }); continue; }
      const desc = { current: descriptor, ...descriptor.variants };
      selfies.push({ name, person, desc });
      const photo = photos.push({ name, kind: 'crop', people: new Set([person]) }) - 1;
      rows.push({ photo, version: 2, quality, desc, label: person });
    }
  }
  console.error('crops done', (process.cpuUsage(cpu0).user / 1e6).toFixed(0), 's');
  const { PersonDetector, OCR_MAX_SIDE } = req('@em/ml-worker');
  const persons = new PersonDetector();
  await persons.load();
  const peopleOn = async (image) => { const { data, info } = await openImage(image).rotate().resize(OCR_MAX_SIDE, OCR_MAX_SIDE, { fit: 'inside', withoutEnlargement: true }).ensureAlpha().raw().toBuffer({ resolveWithObject: true }); return persons.detect({ data, width: info.width, height: info.height }); };
  for (const [shot, labels] of Object.entries(GROUP_FACES)) {
    const buf = fs.readFileSync(path.join(FIX, 'group', shot));
    const meta = await openImage(buf).metadata();
    const { plainLarge } = await renderPreviews(buf);
    const photo = photos.push({ name: shot, kind: 'group', people: new Set(labels.map(([p]) => p)) }) - 1;
    for (const f of await faces.detectAll(plainLarge.buffer, PHOTO_FACE_OPTIONS, await peopleOn(buf))) {
      const l = labels.find(([, x, y]) => x / meta.width >= f.box.x && x / meta.width <= f.box.x + f.box.width && y / meta.height >= f.box.y && y / meta.height <= f.box.y + f.box.height);
      rows.push({ photo, version: f.descriptorVersion, quality: faceQuality(f.signals), desc: { current: f.descriptor, ...f.descriptor.variants }, label: l ? l[0] : 'none' });
    }
  }
  const BIBS = path.resolve(__dirname, '../../../../shared/fixtures/bibs');
  for (const name of fs.readdirSync(BIBS).filter((f) => /\.jpe?g$/i.test(f)).sort()) {
    const image = fs.readFileSync(path.join(BIBS, name));
    const { plainLarge } = await renderPreviews(image);
    const photo = photos.push({ name, kind: 'race', people: new Set() }) - 1;
    for (const f of await faces.detectAll(plainLarge.buffer, PHOTO_FACE_OPTIONS, await peopleOn(image))) rows.push({ photo, version: f.descriptorVersion, quality: faceQuality(f.signals), desc: { current: f.descriptor, ...f.descriptor.variants }, label: 'race' });
  }
  console.error('race done', (process.cpuUsage(cpu0).user / 1e6).toFixed(0), 's');
  {
    const { hardFaceSet } = req('../dist/faces-hard-set.js');
    for (const h of await hardFaceSet(crops)) {
      const photo = photos.push({ name: `${h.kind}:${h.source}`, kind: h.kind, people: new Set([h.person]), source: h.source }) - 1;
      for (const f of await faces.detectAll(h.image, PHOTO_FACE_OPTIONS, await peopleOn(h.image))) rows.push({ photo, version: f.descriptorVersion, quality: faceQuality(f.signals), desc: { current: f.descriptor, ...f.descriptor.variants }, label: h.person });
    }
    console.error('hard done', (process.cpuUsage(cpu0).user / 1e6).toFixed(0), 's');
  }
  fs.writeFileSync(path.join(OUT, process.env.OUT_JSON || 'descriptors-validate.json'), JSON.stringify({ photos: photos.map((p) => ({ ...p, people: [...p.people] })), rows: rows.map((r) => ({ ...r, desc: Object.fromEntries(Object.entries(r.desc).map(([k, v]) => [k, [...v]])) })), selfies: selfies.map((s) => ({ ...s, desc: s.desc && Object.fromEntries(Object.entries(s.desc).map(([k, v]) => [k, [...v]])) })) }));

})().catch((e) => { console.error(e); process.exit(1); });
