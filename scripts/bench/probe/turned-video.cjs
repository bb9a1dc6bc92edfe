// The turned-heads video of the bench, frame by frame: every sighting with its distance to the selfies (probe).
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const sharp = require('sharp');
const { faceQuality, buildSlideshow, probeVideo, sampleFrames } = require('@em/core/media');
const { FaceAnalyzer, VIDEO_FACE_OPTIONS, VideoFaceFinder } = require('@em/ml-worker');
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
  return sharp({ create: { width: 1280, height: 720, channels: 3, background: BG } }).composite(layers).png().toBuffer();
}
const dist = (a, b) => { let s = 0; for (let i = 0; i < 128; i++) s += (a[i] - b[i]) ** 2; return Math.sqrt(s).toFixed(3); };
(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const selfies = {};
  for (const n of ['howard/1.png', 'bernadette/4.png', 'penny/3.png']) selfies[n] = (await faces.embedSelfie(fs.readFileSync(path.join(DIR, n)))).descriptor;
  const shot = [{ crop: 'howard/2.png', turned: true }, { crop: 'bernadette/2.png', turned: true }, { crop: 'penny/1.png', turned: false }];
  const file = '/tmp/faces17/turned.mp4';
  await buildSlideshow([{ image: null, seconds: 4 }, { image: await frame(shot, 0.6), seconds: 4 }, { image: await frame(shot, 0.8), seconds: 4 }, { image: null, seconds: 4 }], file);
  const probe = await probeVideo(file);
  const finder = new VideoFaceFinder(faces, probe.width, probe.height, 2);
  const log = (ss) => { for (const s of ss) console.log(`t=${s.time} track ${s.track} v${s.descriptorVersion} q=${s.quality.toFixed(2)} ` + Object.entries(selfies).map(([n, d]) => `${n.split('/')[0]}:${dist(d, s.descriptor)}`).join(' ')); };
  await sampleFrames(file, { fps: 2, width: probe.width, height: probe.height, format: probe.format }, async (rgb, time) => {
    if (time === 10) { const f = await faces.detectFrame(rgb, probe.width, probe.height); console.log('direct t=10:', f.map((x) => `x=${(x.box.x * 1280).toFixed(0)} v${x.descriptorVersion} ` + Object.entries(selfies).map(([n, d]) => `${n.split('/')[0]}:${dist(d, x.descriptor)}`).join(' ')).join(' | ')); }
    log(await finder.frame(rgb, time));
  });
  log(await finder.finish());
})();
