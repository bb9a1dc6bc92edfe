// Does re-detecting with the tiny detector on an upscaled crop around a BlazeFace box give a better descriptor? (probe)
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const sharp = require('sharp');
const { FaceAnalyzer, VIDEO_FACE_OPTIONS } = require('@em/ml-worker');
const DIR = path.resolve(__dirname, '../../../../shared/fixtures/faces');
const BG = { r: 110, g: 110, b: 110 };
async function frame(faces, scale) {
  const side = Math.round(200 * scale);
  const layers = [];
  for (const [i, f] of faces.entries()) {
    const face = await sharp(fs.readFileSync(path.join(DIR, f.crop))).removeAlpha().toColourspace('srgb').resize(side, side).png().toBuffer();
    const input = f.turned ? await sharp(await sharp(face).resize(Math.round(side * 0.7), side, { fit: 'fill' }).png().toBuffer()).rotate(15, { background: BG }).png().toBuffer() : face;
    layers.push({ input, left: 120 + i * 380, top: 200 + (i % 2) * 60 });
  }
  return sharp({ create: { width: 1280, height: 720, channels: 3, background: BG } }).composite(layers).removeAlpha().png().toBuffer();
}
const dist = (a, b) => { let s = 0; for (let i = 0; i < 128; i++) s += (a[i] - b[i]) ** 2; return Math.sqrt(s).toFixed(3); };
(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const selfies = {};
  for (const n of ['howard/1.png', 'bernadette/4.png', 'penny/3.png']) selfies[n] = (await faces.embedSelfie(fs.readFileSync(path.join(DIR, n)))).descriptor;
  const shot = [{ crop: 'howard/2.png', turned: true }, { crop: 'bernadette/2.png', turned: true }, { crop: 'penny/1.png', turned: false }];
  for (const scale of [0.6, 0.8]) {
    const png = await frame(shot, scale);
    const { data } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    const found = await faces.detectFrame(data, 1280, 720, VIDEO_FACE_OPTIONS);
    for (const f of found) {
      const b = { x: f.box.x * 1280, y: f.box.y * 720, w: f.box.width * 1280, h: f.box.height * 720 };
      for (const grow of [1, 2]) {
        const side = Math.max(b.w, b.h) * grow;
        const left = Math.max(0, Math.round(b.x + b.w / 2 - side / 2)), top = Math.max(0, Math.round(b.y + b.h / 2 - side / 2));
        const width = Math.min(1280 - left, Math.round(side)), height = Math.min(720 - top, Math.round(side));
        const crop = await sharp(png).extract({ left, top, width, height }).resize(320, 320, { fit: 'contain', background: BG }).png().toBuffer();
        const s = await faces.embedSelfie(crop);
        console.log(`scale ${scale} face x=${b.x.toFixed(0)} v${f.descriptorVersion} orig ${Object.entries(selfies).map(([n, d]) => `${n.split('/')[0]}:${dist(d, f.descriptor)}`).join(' ')} | grow ${grow} crop: ` + (s.descriptor ? Object.entries(selfies).map(([n, d]) => `${n.split('/')[0]}:${dist(d, s.descriptor)}`).join(' ') : 'no face'));
      }
    }
  }
})();
