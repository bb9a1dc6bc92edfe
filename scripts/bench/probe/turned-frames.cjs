// What the video path finds on the turned-heads audience frames (bench video-turned), and how near each face is to the selfies.
// node scripts/bench/probe/turned-frames.cjs  (after npm run build)
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const sharp = require('sharp');
const { faceQuality } = require('@em/core/media');
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
  return sharp({ create: { width: 1280, height: 720, channels: 3, background: BG } }).composite(layers).removeAlpha().raw().toBuffer();
}
const dist = (a, b) => { let s = 0; for (let i = 0; i < 128; i++) s += (a[i] - b[i]) ** 2; return Math.sqrt(s).toFixed(3); };
(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const selfies = {};
  for (const n of ['howard/1.png', 'bernadette/4.png', 'penny/3.png']) selfies[n] = (await faces.embedSelfie(fs.readFileSync(path.join(DIR, n)))).descriptor;
  const shot = [{ crop: 'howard/2.png', turned: true }, { crop: 'bernadette/2.png', turned: true }, { crop: 'penny/1.png', turned: false }];
  for (const scale of [0.6, 0.8, 1]) for (const [label, options] of [['tiny', { ...VIDEO_FACE_OPTIONS, detector: 'tiny' }], ['both', VIDEO_FACE_OPTIONS], ['photo', { ...VIDEO_FACE_OPTIONS, inputSize: 512 }]]) {
    const rgb = await frame(shot, scale);
    const found = await faces.detectFrame(rgb, 1280, 720, options);
    console.log(`scale ${scale} ${label}: ` + found.map((f) => `x=${(f.box.x * 1280).toFixed(0)} w=${(f.box.width * 1280).toFixed(0)} v${f.descriptorVersion} q=${faceQuality(f.signals).toFixed(2)} ` + Object.entries(selfies).map(([n, d]) => `${n.split('/')[0]}:${dist(d, f.descriptor)}`).join(' ')).join(' | '));
  }
})();
