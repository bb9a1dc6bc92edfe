// Where SHOT_CHANGE's thresholds come from: signature distances of synthetic cuts (consecutive frames from two
// different photos) and of synthetic non-cuts (one photo panned, zoomed, relit, re-encoded, a person crossing it),
// at 640x360, the frames being 0.5 s apart (2 fps). Prints each case's layout / histogram distances and the extremes.
// node scripts/bench/probe/shot-change-thresholds.cjs  (after npm run build; reads ../shared/fixtures when present)
const path = require('node:path');
const fs = require('node:fs');
const sharp = require('sharp');
const { shotSignature, shotDistance, SHOT_CHANGE } = require(process.env.SHOT_CHANGE_MODULE || '../../../ml-worker/dist/videos/shot-change.js');

const W = 640;
const H = 360;
const root = path.resolve(__dirname, '../../..');
const demo = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json', { paths: [root] })), 'demo');
const fixtures = path.resolve(root, '../shared/fixtures');

function photos() {
  const out = fs.readdirSync(demo).filter((f) => /^sample\d\.jpg$/.test(f)).map((f) => ({ name: `demo/${f}`, file: path.join(demo, f) }));
  for (const sub of ['bibs', 'rbnr']) {
    const dir = path.join(fixtures, sub);
    if (!fs.existsSync(dir)) continue;
    const names = fs.readdirSync(dir).filter((f) => /\.jpe?g$/i.test(f)).sort();
    for (const f of names.slice(0, sub === 'rbnr' ? 12 : 6)) out.push({ name: `${sub}/${f}`, file: path.join(dir, f) });
  }
  return out;
}

/** A W x H frame cut from the photo: `view` = { x, y, scale } (0-1 offsets of a window `scale` of the photo's size). */
async function frame(file, view = { x: 0, y: 0, scale: 1 }, brighten = 0, quality = 0) {
  const img = sharp(file).rotate();
  const { width, height } = await img.metadata();
  const cw = Math.floor(width * view.scale);
  const ch = Math.floor(height * view.scale);
  let pipeline = sharp(file).rotate().extract({ left: Math.floor((width - cw) * view.x), top: Math.floor((height - ch) * view.y), width: cw, height: ch }).resize(W, H, { fit: 'fill' });
  if (brighten) pipeline = pipeline.linear(1, brighten);
  if (quality) pipeline = sharp(await pipeline.jpeg({ quality }).toBuffer());
  return pipeline.removeAlpha().raw().toBuffer();
}

/** The frame with a grey person-sized block at x (0-1): someone crossing the shot. */
function withPerson(rgb, x) {
  const out = Buffer.from(rgb);
  const bw = Math.floor(W * 0.12);
  const x0 = Math.floor((W - bw) * x);
  for (let y = Math.floor(H * 0.2); y < H; y++) out.fill(90, (y * W + x0) * 3, (y * W + x0 + bw) * 3);
  return out;
}

(async () => {
  const list = photos();
  const sig = (rgb) => shotSignature(rgb, W, H);
  const base = [];
  for (const p of list) base.push({ ...p, rgb: await frame(p.file, { x: 0.5, y: 0.5, scale: 0.8 }) });
  const cuts = [];
  for (let i = 0; i < base.length; i++) {
    for (let j = 0; j < base.length; j++) if (i !== j && (j === i + 1 || (i < 6) === (j < 6))) cuts.push({ name: `${base[i].name} -> ${base[j].name}`, d: shotDistance(sig(base[i].rgb), sig(base[j].rgb)) });
  }
  const within = [];
  for (const p of base) {
    const a = sig(p.rgb);
    const cases = {
      'pan 10%': await frame(p.file, { x: 0.6, y: 0.5, scale: 0.8 }),
      'pan 25%': await frame(p.file, { x: 0.75, y: 0.5, scale: 0.8 }),
      'tilt 20%': await frame(p.file, { x: 0.5, y: 0.7, scale: 0.8 }),
      'zoom 15%': await frame(p.file, { x: 0.5, y: 0.5, scale: 0.68 }),
      'zoom out 20%': await frame(p.file, { x: 0.5, y: 0.5, scale: 0.96 }),
      'light +20': await frame(p.file, { x: 0.5, y: 0.5, scale: 0.8 }, 20),
      'light -25': await frame(p.file, { x: 0.5, y: 0.5, scale: 0.8 }, -25),
      'jpeg q30': await frame(p.file, { x: 0.5, y: 0.5, scale: 0.8 }, 0, 30),
      'person crossing': withPerson(p.rgb, 0.4),
    };
    for (const [kind, rgb] of Object.entries(cases)) within.push({ name: `${p.name} ${kind}`, d: shotDistance(a, sig(rgb)) });
  }
  if (process.env.SHOT_CHANGE_DUMP) fs.writeFileSync(process.env.SHOT_CHANGE_DUMP, JSON.stringify({ cuts, within }));
  const detected = (d) => d.layout >= SHOT_CHANGE.layout && d.histogram >= SHOT_CHANGE.histogram;
  const show = (r) => `${r.d.layout.toFixed(3)} / ${r.d.histogram.toFixed(3)}  ${r.name}`;
  const by = (key, list) => [...list].sort((a, b) => a.d[key] - b.d[key]);
  console.log(`thresholds: layout ${SHOT_CHANGE.layout}, histogram ${SHOT_CHANGE.histogram}`);
  console.log(`cuts: ${cuts.length}, detected ${cuts.filter((c) => detected(c.d)).length}; missed:`);
  for (const c of cuts.filter((c) => !detected(c.d))) console.log(`  ${show(c)}`);
  console.log('cuts, lowest layout:', by('layout', cuts).slice(0, 3).map(show));
  console.log('cuts, lowest histogram:', by('histogram', cuts).slice(0, 3).map(show));
  console.log(`non-cuts: ${within.length}, false cuts ${within.filter((c) => detected(c.d)).length}:`);
  for (const c of within.filter((c) => detected(c.d))) console.log(`  ${show(c)}`);
  console.log('non-cuts, highest layout:', by('layout', within).slice(-4).map(show));
  console.log('non-cuts, highest histogram:', by('histogram', within).slice(-4).map(show));
})();
