// Calibration of videos/face-look.ts: look distances of the same face across frames of the bench videos (detector boxes each
// frame, brightened or not), of a box shifted by part of its width, and of different people (and other photos of the same person) at the same place.
// NODE_PATH=node_modules node scripts/bench/probe/video-look.cjs
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const sharp = require('sharp');
const { buildSlideshow, probeVideo, sampleFrames } = require('@em/core/media');
const ml = require('@em/ml-worker');
const { faceLook, lookDistance } = require('../../../ml-worker/dist/videos/face-look.js');
const { DIR, composeFrame, TURNED_SHOT } = require('./turned-shot.cjs');
const SAMPLES = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
const stats = (xs) => xs.length ? `n ${xs.length} min ${Math.min(...xs).toFixed(3)} median ${[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(3)} max ${Math.max(...xs).toFixed(3)}` : 'none';
const brighter = (rgb) => Buffer.from(rgb.map((v) => Math.min(255, v + 10)));

(async () => {
  const faces = new ml.FaceAnalyzer();
  await faces.load();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'em-look-'));
  const [a, b, c] = ['sample5.jpg', 'sample6.jpg', 'sample2.jpg'].map((f) => fs.readFileSync(path.join(SAMPLES, f)));
  const file = path.join(dir, 'bench.mp4');
  await buildSlideshow([{ image: a, seconds: 3 }, { image: b, seconds: 3 }, { image: c, seconds: 3 }, { image: await (await composeFrame(TURNED_SHOT, 0.6)).png().toBuffer(), seconds: 3 }], file);
  const probe = await probeVideo(file);
  const W = probe.width, H = probe.height;
  const frames = [];
  await sampleFrames(file, { fps: 2, width: W, height: H, format: probe.format }, async (rgb, time) => { frames.push({ rgb, time, faces: (await faces.detectFrame(rgb, W, H)).map((f) => f.box) }); });
  const same = [], sameBright = [], shifted5 = [], shifted10 = [], shifted20 = [];
  for (let i = 1; i < frames.length; i++) {
    const [p, q] = [frames[i - 1], frames[i]];
    if (Math.floor(p.time / 3) !== Math.floor(q.time / 3)) continue;
    for (const box of p.faces) {
      const match = q.faces.find((o) => Math.abs(o.x - box.x) < box.width * 0.3 && Math.abs(o.y - box.y) < box.height * 0.3);
      if (!match) continue;
      const lp = faceLook(p.rgb, W, H, box);
      same.push(lookDistance(lp, faceLook(q.rgb, W, H, match)));
      sameBright.push(lookDistance(lp, faceLook(brighter(q.rgb), W, H, match)));
      for (const [arr, f] of [[shifted5, 0.05], [shifted10, 0.1], [shifted20, 0.2]]) arr.push(lookDistance(lp, faceLook(p.rgb, W, H, { ...box, x: box.x + box.width * f })));
    }
  }
  console.log('same face, next frame, detector boxes:', stats(same));
  console.log('same, next frame brightened by 10:', stats(sameBright));
  console.log('box shifted by 5% of its width:', stats(shifted5));
  console.log('box shifted by 10%:', stats(shifted10));
  console.log('box shifted by 20%:', stats(shifted20));
  // Different faces (and other photos of the same person), each 160 px at the same place of a grey frame.
  const people = fs.readdirSync(DIR).filter((d) => d !== 'group');
  const looks = [];
  for (const person of people) for (const f of fs.readdirSync(path.join(DIR, person)).slice(0, 3)) {
    const face = await sharp(path.join(DIR, person, f)).removeAlpha().toColourspace('srgb').resize(160, 160).png().toBuffer();
    const { data } = await sharp({ create: { width: 640, height: 360, channels: 3, background: { r: 110, g: 110, b: 110 } } }).composite([{ input: face, left: 200, top: 100 }]).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const mirrored = await sharp(face).flop().png().toBuffer();
    const { data: m } = await sharp({ create: { width: 640, height: 360, channels: 3, background: { r: 110, g: 110, b: 110 } } }).composite([{ input: mirrored, left: 200, top: 100 }]).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const box = { x: 200 / 640, y: 100 / 360, width: 160 / 640, height: 160 / 360 };
    looks.push({ person, look: faceLook(data, 640, 360, box), mirror: faceLook(m, 640, 360, box) });
  }
  const others = [], samePerson = [], mirror = [];
  for (let i = 0; i < looks.length; i++) {
    mirror.push(lookDistance(looks[i].look, looks[i].mirror));
    for (let j = i + 1; j < looks.length; j++) (looks[i].person === looks[j].person ? samePerson : others).push(lookDistance(looks[i].look, looks[j].look));
  }
  console.log('other people:', stats(others));
  console.log('other photos of the same person:', stats(samePerson));
  console.log('the face mirrored (turned the other way):', stats(mirror));
  fs.rmSync(dir, { recursive: true, force: true });
})();
