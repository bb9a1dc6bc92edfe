// Face probe (issue 17): detectors and descriptors compared on ../shared/fixtures/faces in one run.
// node scripts/bench/probe/probe.cjs [fixturesDir]
const path = require('node:path');
const fs = require('node:fs');
const sharp = require('sharp');
const { loadAll } = require('./models.cjs');
const { hardSet } = require('./hard-set.cjs');

const ONLY_B = process.env.PROBE_ONLY_B === '1';
const FIX = path.join(process.argv[2] || path.resolve(__dirname, '../../../../shared/fixtures'), 'faces');
const GROUP = {
  'bbt1.jpg': [['raj', 258, 190], ['leonard', 516, 200], ['howard', 775, 185], ['sheldon', 1050, 140]],
  'bbt2.jpg': [['unknown', 25, 120], ['leonard', 135, 170], ['sheldon', 417, 168]],
  'bbt3.jpg': [['sheldon', 65, 58], ['howard', 180, 118], ['penny', 280, 130], ['raj', 390, 140], ['leonard', 518, 135]],
  'bbt4.jpg': [['amy', 125, 80], ['raj', 275, 95], ['bernadette', 620, 118], ['leonard', 95, 320], ['penny', 298, 285], ['sheldon', 510, 230]],
  'bbt5.jpg': [['raj', 148, 210], ['penny', 256, 78], ['sheldon', 480, 200], ['leonard', 612, 92], ['howard', 760, 150]],
};
const cpu = {}; // component -> {us, n}
async function timed(name, work) {
  const c = process.cpuUsage();
  try { return await work(); } finally {
    const d = process.cpuUsage(c);
    const e = (cpu[name] ??= { us: 0, n: 0 });
    e.us += d.user + d.system; e.n++;
  }
}
const rssMb = () => Math.round(process.memoryUsage().rss / 1e6);

async function rgbOf(buf, pad = 0) {
  let img = sharp(buf).rotate();
  if (pad) {
    const meta = await sharp(buf).metadata();
    const m = Math.round(Math.max(meta.width, meta.height) * pad);
    img = sharp(await img.extend({ top: m, bottom: m, left: m, right: m, background: { r: 128, g: 128, b: 128 } }).png().toBuffer());
  }
  const { data, info } = await img.removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

(async () => {
  const memory = { start: rssMb() };
  const m = await loadAll({ extra: ['mobilefacenet', 'faceres-deep'] });
  memory.loaded = rssMb();
  const { faceapi, tf, human, graphs } = m;
  const humanModelsDir = require('./models.cjs').humanModels;
  const { loadGraphFromDir } = require('./graph.cjs');
  const faceresNet = await loadGraphFromDir(tf, humanModelsDir, 'faceres');

  // ---- descriptor helpers
  async function faceapiDescribe(tensor, rects) {
    if (!rects.length) return [];
    const crops = await faceapi.extractFaceTensors(tensor, rects);
    const out = [];
    for (const crop of crops) {
      const a = await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(crop);
      const f = tf.reverse(crop, 1);
      const b = await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(f);
      f.dispose(); crop.dispose();
      out.push(Float32Array.from(a, (v, i) => (v + b[i]) / 2));
    }
    return out;
  }
  async function tinyFaces(img, inputSize, minWidth) {
    const tensor = tf.tensor3d(img.data, [img.height, img.width, 3], 'int32');
    try {
      const found = (await faceapi.detectAllFaces(tensor, new faceapi.TinyFaceDetectorOptions({ inputSize, scoreThreshold: 0.5 })).withFaceLandmarks())
        .filter((r) => r.detection.box.width >= minWidth);
      const desc = await faceapiDescribe(tensor, found.map((f) => f.landmarks.align(null, { useDlibAlignment: true })));
      return found.map((r, i) => ({ box: [r.detection.box.x, r.detection.box.y, r.detection.box.width, r.detection.box.height], d: desc[i] }));
    } finally { tensor.dispose(); }
  }
  async function ssdFaces(img, minWidth) {
    const tensor = tf.tensor3d(img.data, [img.height, img.width, 3], 'int32');
    try {
      const found = (await faceapi.detectAllFaces(tensor, new faceapi.SsdMobilenetv1Options({ minConfidence: 0.5 })).withFaceLandmarks()).filter((r) => r.detection.box.width >= minWidth);
      const desc = await faceapiDescribe(tensor, found.map((f) => f.landmarks.align(null, { useDlibAlignment: true })));
      return found.map((r, i) => ({ box: [r.detection.box.x, r.detection.box.y, r.detection.box.width, r.detection.box.height], d: desc[i] }));
    } finally { tensor.dispose(); }
  }
  // human detection (blazeface + mesh, rotation-corrected face tensors), optionally over tiles too
  async function humanDetect(img, tiles) {
    const tensor = tf.tensor3d(img.data, [img.height, img.width, 3], 'int32');
    const faces = [];
    try {
      const regions = [[0, 0, img.width, img.height]];
      if (tiles) {
        const side = Math.round(Math.min(img.width, img.height) / 2), step = Math.round(side * 0.75);
        for (let y = 0; y + side <= img.height + step - 1; y += step) for (let x = 0; x + side <= img.width + step - 1; x += step) regions.push([Math.min(x, img.width - side), Math.min(y, img.height - side), side, side]);
      }
      for (const [rx, ry, rw, rh] of regions) {
        const part = (rx === 0 && ry === 0 && rw === img.width && rh === img.height) ? tensor : tf.slice(tensor, [ry, rx, 0], [rh, rw, 3]);
        const res = await human.detect(part);
        if (part !== tensor) part.dispose();
        for (const f of res.face) {
          const box = [f.box[0] + rx, f.box[1] + ry, f.box[2], f.box[3]];
          const dup = faces.find((g) => iou(g.box, box) > 0.3);
          if (dup || f.score < 0.5) { tf.dispose(f.tensor); continue; }
          faces.push({ box, score: f.score, faceTensor: f.tensor });
        }
      }
    } finally { tensor.dispose(); }
    return faces;
  }
  async function faceapiOnBoxes(img, boxes) {
    const tensor = tf.tensor3d(img.data, [img.height, img.width, 3], 'int32');
    try {
      const rects = boxes.map(([x, y, w, h]) => { const x0 = Math.max(0, x), y0 = Math.max(0, y); return new faceapi.Rect(x0, y0, Math.min(img.width, x + w) - x0, Math.min(img.height, y + h) - y0); });
      const crops = await faceapi.extractFaceTensors(tensor, rects);
      const aligned = [];
      for (let i = 0; i < crops.length; i++) {
        const lm = await faceapi.nets.faceLandmark68Net.detectLandmarks(crops[i]);
        crops[i].dispose();
        aligned.push(lm.shiftBy(rects[i].x, rects[i].y).align(null, { useDlibAlignment: true }));
      }
      return await faceapiDescribe(tensor, aligned);
    } finally { tensor.dispose(); }
  }
  async function graphDescribe(net, faceTensor, scale) {
    return tf.tidy(() => {
      const x = tf.expandDims(faceTensor, 0);
      const [h, w] = [net.inputs[0].shape[1], net.inputs[0].shape[2]];
      const both = tf.concat([x, tf.reverse(x, 2)], 0);
      const input = tf.mul(tf.image.resizeBilinear(both, [h, w], false), scale);
      let out = net.execute(input);
      if (Array.isArray(out)) out = out.reduce((a, b) => (b.shape[1] > a.shape[1] ? b : a));
      const v = out.dataSync(), n = out.shape[1];
      const mean = new Float32Array(n);
      for (let i = 0; i < n; i++) mean[i] = (v[i] + v[n + i]) / 2;
      return { plain: l2(v.slice(0, n)), mirrored: l2(mean) };
    });
  }
  async function allDescriptors(img, prefix, tiles) {
    const hf = await timed(`${prefix}human-detect${tiles ? '-tiled' : ''}`, () => humanDetect(img, tiles));
    const fa = ONLY_B ? [] : await timed(`${prefix}faceapi-on-human${tiles ? '-tiled' : ''}`, () => faceapiOnBoxes(img, hf.map((f) => f.box)));
    const out = hf.map((f, i) => ({ box: f.box, fa: fa[i] }));
    for (const [name, net, scale] of [['faceres', faceresNet, 255], ['mobilefacenet', graphs.mobilefacenet, 1], ['faceres-deep', graphs['faceres-deep'], 255]]) {
      if (!net) continue;
      for (let i = 0; i < hf.length; i++) {
        const r = await timed(`${prefix}${name}${tiles ? '-tiled' : ''}`, () => graphDescribe(net, hf[i].faceTensor, scale));
        out[i][name] = r.mirrored; out[i][`${name}-plain`] = r.plain;
      }
    }
    for (const f of hf) tf.dispose(f.faceTensor);
    return out;
  }

  // ---- the event: crops (as photos, the selfie's descriptor), group shots, hard set
  const people = fs.readdirSync(FIX).filter((p) => p !== 'group' && !p.startsWith('.')).sort();
  const crops = [];
  for (const p of people) for (const f of fs.readdirSync(path.join(FIX, p)).filter((f) => /\.(png|jpe?g)$/i.test(f)).sort()) crops.push({ person: p, name: `${p}/${f}`, buf: fs.readFileSync(path.join(FIX, p, f)) });
  const OPTIONS = ['A0 tiny512 (now)', 'A1 human boxes -> face-api 128-d', 'A2 tiny512 + human boxes -> face-api 128-d', 'A3 tiny512+1024 -> face-api 128-d', 'A4 A2 + tiles', 'B1 human faceres 1024-d', 'B1p faceres plain', 'B2 mobilefacenet', 'B3 faceres-deep', 'B4 B1 + tiles'];
  if (ONLY_B) OPTIONS.splice(0, OPTIONS.length, 'B1 human faceres 1024-d', 'B1p faceres plain', 'B2 mobilefacenet', 'B3 faceres-deep');
  const KIND = { 'A0 tiny512 (now)': 'fa', 'A1 human boxes -> face-api 128-d': 'fa', 'A2 tiny512 + human boxes -> face-api 128-d': 'fa', 'A3 tiny512+1024 -> face-api 128-d': 'fa', 'A4 A2 + tiles': 'fa', 'B1 human faceres 1024-d': 'faceres', 'B1p faceres plain': 'faceres-plain', 'B2 mobilefacenet': 'mobilefacenet', 'B3 faceres-deep': 'faceres-deep', 'B4 B1 + tiles': 'faceres' };
  // selfies: descriptor per option
  const selfie = {}; // option -> name -> descriptor|null
  for (const o of OPTIONS) selfie[o] = {};
  for (const c of crops) {
    // current path: pad .25 then 1; tiny 224, ssd fallback
    let d = null;
    for (const pad of ONLY_B ? [] : [0.25, 1]) {
      const img = await rgbOf(c.buf, pad);
      let f = await timed('selfie:tiny224', () => tinyFaces(img, 224, 24));
      if (!f.length) f = await timed('selfie:ssd', () => ssdFaces(img, 24));
      if (f.length) { d = largest(f).d; break; }
    }
    for (const o of OPTIONS.filter((o) => o.startsWith('A'))) selfie[o][c.name] = d;
    let h = null;
    for (const pad of [0.25, 1]) {
      const img = await rgbOf(c.buf, pad);
      const f = await allDescriptors(img, 'selfie:', false);
      if (f.length) { h = largest(f); break; }
    }
    for (const o of OPTIONS.filter((o) => o.startsWith('B'))) selfie[o][c.name] = h ? h[KIND[o]] : null;
    if (!ONLY_B) selfie['A1 human boxes -> face-api 128-d'][c.name] = h ? h.fa : null;
  }
  memory.afterSelfies = rssMb();
  // photos: option -> [{photo, people:Set, kind, rows:[{d, label}]}]
  const photos = {};
  for (const o of OPTIONS) photos[o] = [];
  for (const c of crops) for (const o of OPTIONS) photos[o].push({ name: c.name, kind: 'crop', people: new Set([c.person]), rows: selfie[o][c.name] ? [selfie[o][c.name]] : [] });
  const groupFound = {};
  async function indexPhoto(name, kind, peopleIn, buf, labels, source) {
    const img = await rgbOf(buf);
    const t512 = ONLY_B ? [] : await timed(`${kind}:tiny512`, () => tinyFaces(img, 512, 48));
    const t1024 = !ONLY_B && img.width > 1000 || img.height > 1000 ? await timed(`${kind}:tiny1024`, () => tinyFaces(img, 1024, 24)) : [];
    const h = await allDescriptors(img, `${kind}:`, false);
    const ht = !ONLY_B && img.width > 1000 ? await allDescriptors(img, `${kind}:`, true) : h;
    const sets = {
      'A0 tiny512 (now)': t512.map((f) => ({ box: f.box, d: f.d })),
      'A1 human boxes -> face-api 128-d': h.map((f) => ({ box: f.box, d: f.fa })),
      'A2 tiny512 + human boxes -> face-api 128-d': union(t512.map((f) => ({ box: f.box, d: f.d })), h.map((f) => ({ box: f.box, d: f.fa }))),
      'A3 tiny512+1024 -> face-api 128-d': union(t512.map((f) => ({ box: f.box, d: f.d })), t1024.map((f) => ({ box: f.box, d: f.d }))),
      'A4 A2 + tiles': union(union(t512.map((f) => ({ box: f.box, d: f.d })), h.map((f) => ({ box: f.box, d: f.fa }))), ht.map((f) => ({ box: f.box, d: f.fa }))),
      'B1 human faceres 1024-d': h.map((f) => ({ box: f.box, d: f.faceres })),
      'B1p faceres plain': h.map((f) => ({ box: f.box, d: f['faceres-plain'] })),
      'B2 mobilefacenet': h.map((f) => ({ box: f.box, d: f.mobilefacenet })),
      'B3 faceres-deep': h.map((f) => ({ box: f.box, d: f['faceres-deep'] })),
      'B4 B1 + tiles': ht.map((f) => ({ box: f.box, d: f.faceres })),
    };
    for (const o of OPTIONS) {
      const rows = sets[o].filter((f) => f.d);
      photos[o].push({ name, kind, people: peopleIn, source, rows: rows.map((f) => f.d) });
      if (labels) {
        const hit = new Set(); let extra = 0;
        for (const f of rows) { const l = labels.find(([, x, y]) => x >= f.box[0] && x <= f.box[0] + f.box[2] && y >= f.box[1] && y <= f.box[1] + f.box[3]); if (l) hit.add(l[0] + l[1]); else extra++; }
        const g = (groupFound[o] ??= { hit: 0, of: 0, extra: 0 }); g.hit += hit.size; g.of += labels.length; g.extra += extra;
      }
    }
  }
  for (const [shot, labels] of Object.entries(GROUP)) await indexPhoto(shot, 'group', new Set(labels.map(([p]) => p)), fs.readFileSync(path.join(FIX, 'group', shot)), labels);
  memory.afterGroups = rssMb();
  const hard = await hardSet(crops);
  for (const h of hard) await indexPhoto(h.name, `hard-${h.kind}`, new Set([h.person]), h.buf, null, h.source);
  memory.end = rssMb();

  // ---- evaluation
  const report = [];
  for (const o of OPTIONS) {
    const pos = { crop: [], group: [] }, hardPos = {}, neg = [];
    for (const [name, d] of Object.entries(selfie[o])) {
      const person = name.split('/')[0];
      for (const p of photos[o]) {
        if (p.kind === 'crop' && p.name === name) continue;
        if (p.source === name) continue; // a hard photo made from this very crop
        const dist = d && p.rows.length ? Math.min(...p.rows.map((r) => distance(d, r))) : Infinity;
        if (p.people.has(person)) {
          if (p.kind === 'crop' && !p.rows.length) continue; // as the bench: a crop without a face is no photo
          if (p.kind.startsWith('hard')) (hardPos[p.kind] ??= []).push(dist); else pos[p.kind].push(dist);
        } else neg.push(dist);
      }
    }
    neg.sort((a, b) => a - b);
    const firstWrong = neg[0];
    const all = [...pos.crop, ...pos.group];
    const finite = all.filter(Number.isFinite).sort((a, b) => a - b);
    const gap = median(neg.filter(Number.isFinite)) - median(finite);
    const at = (t) => (arr) => arr.filter((x) => x < t).length / arr.length;
    const relMargin = 0.1 * gap;
    const tEq = firstWrong - relMargin;
    const row = { option: o, firstWrong: firstWrong.toFixed(3), gap: gap.toFixed(3) };
    const fmt = (t) => {
      const r = at(t);
      const hards = Object.fromEntries(Object.entries(hardPos).map(([k, v]) => [k.replace('hard-', ''), r(v).toFixed(2)]));
      const hardAll = r(Object.values(hardPos).flat());
      return `recall ${r(all).toFixed(3)} (crops ${r(pos.crop).toFixed(2)}, group ${r(pos.group).toFixed(2)}) wrong ${neg.filter((x) => x < t).length}; hard ${hardAll.toFixed(3)} ${JSON.stringify(hards)}`;
    };
    if (KIND[o] === 'fa') row.at058 = `t=0.560 margin ${(firstWrong - 0.56).toFixed(3)}: ` + fmt(0.56);
    row.atFirstWrong = `t<${firstWrong.toFixed(3)}: ` + fmt(firstWrong - 1e-6);
    row.atRelMargin = `t=${tEq.toFixed(3)} (margin 0.1 x gap = ${relMargin.toFixed(3)}): ` + fmt(tEq);
    row.groupFaces = groupFound[o];
    row.noFaceSelfies = Object.values(selfie[o]).filter((d) => !d).length;
    report.push(row);
  }
  const cpuMs = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, `${(v.us / 1000 / v.n).toFixed(0)} ms x${v.n}`]));
  const out = { report, cpuMsPerCall: cpuMs, memory, tfMemoryMb: Math.round(tf.memory().numBytes / 1e6) };
  fs.writeFileSync(process.env.PROBE_OUT || '/tmp/face-probe.json', JSON.stringify(out, null, 1));
  console.log(JSON.stringify(out, null, 1));
})().catch((e) => { console.error(e); process.exit(1); });

function l2(v) { let s = 0; for (const x of v) s += x * x; s = Math.sqrt(s) || 1; return Float32Array.from(v, (x) => x / s); }
function distance(a, b) { let s = 0; for (let i = 0; i < a.length; i++) { const d = a[i] - b[i]; s += d * d; } return Math.sqrt(s); }
function median(v) { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }
function largest(fs) { return [...fs].sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3])[0]; }
function iou(a, b) {
  const x0 = Math.max(a[0], b[0]), y0 = Math.max(a[1], b[1]), x1 = Math.min(a[0] + a[2], b[0] + b[2]), y1 = Math.min(a[1] + a[3], b[1] + b[3]);
  const i = Math.max(0, x1 - x0) * Math.max(0, y1 - y0); return i / (a[2] * a[3] + b[2] * b[3] - i);
}
/** b's faces that overlap none of a's are added (a face found by both keeps a's descriptor). */
function union(a, b) { return [...a, ...b.filter((f) => !a.some((g) => iou(g.box, f.box) > 0.3 || contains(g.box, f.box) || contains(f.box, g.box)))]; }
function contains(o, i) { const cx = i[0] + i[2] / 2, cy = i[1] + i[3] / 2; return cx >= o[0] && cx <= o[0] + o[2] && cy >= o[1] && cy <= o[1] + o[3]; }
