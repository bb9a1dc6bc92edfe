// Does re-detecting with the tiny detector on an upscaled crop around a BlazeFace box give a better descriptor? (probe)
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const sharp = require('sharp');
const { FaceAnalyzer, VIDEO_FACE_OPTIONS } = require('@em/ml-worker');
const { DIR, BG, composeFrame, dist, TURNED_SHOT, turnedSelfies } = require('./turned-shot.cjs');
const frame = async (faces, scale) => (await composeFrame(faces, scale)).removeAlpha().png().toBuffer();
(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const selfies = await turnedSelfies(faces);
  const shot = TURNED_SHOT;
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
