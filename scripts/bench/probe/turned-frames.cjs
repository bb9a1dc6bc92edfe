// What the video path finds on the turned-heads audience frames (bench video-turned), and how near each face is to the selfies.
// node scripts/bench/probe/turned-frames.cjs  (after npm run build)
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const sharp = require('sharp');
const { faceQuality } = require('@em/core/media');
const { FaceAnalyzer, VIDEO_FACE_OPTIONS } = require('@em/ml-worker');
const { DIR, BG, composeFrame, dist, TURNED_SHOT, turnedSelfies } = require('./turned-shot.cjs');
const frame = async (faces, scale) => (await composeFrame(faces, scale)).removeAlpha().raw().toBuffer();
(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const selfies = await turnedSelfies(faces);
  const shot = TURNED_SHOT;
  for (const scale of [0.6, 0.8, 1]) for (const [label, options] of [['tiny', { ...VIDEO_FACE_OPTIONS, detector: 'tiny' }], ['both', VIDEO_FACE_OPTIONS], ['photo', { ...VIDEO_FACE_OPTIONS, inputSize: 512 }]]) {
    const rgb = await frame(shot, scale);
    const found = await faces.detectFrame(rgb, 1280, 720, options);
    console.log(`scale ${scale} ${label}: ` + found.map((f) => `x=${(f.box.x * 1280).toFixed(0)} w=${(f.box.width * 1280).toFixed(0)} v${f.descriptorVersion} q=${faceQuality(f.signals).toFixed(2)} ` + Object.entries(selfies).map(([n, d]) => `${n.split('/')[0]}:${dist(d, f.descriptor)}`).join(' ')).join(' | '));
  }
})();
