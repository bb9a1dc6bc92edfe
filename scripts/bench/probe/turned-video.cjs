// The turned-heads video of the bench, frame by frame: every sighting with its distance to the selfies (probe).
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const sharp = require('sharp');
const { faceQuality, buildSlideshow, probeVideo, sampleFrames } = require('@em/core/media');
const { FaceAnalyzer, VIDEO_FACE_OPTIONS, VideoFaceFinder } = require('@em/ml-worker');
const { DIR, BG, composeFrame, dist, TURNED_SHOT, turnedSelfies } = require('./turned-shot.cjs');
const frame = async (faces, scale) => (await composeFrame(faces, scale)).png().toBuffer();
(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const selfies = await turnedSelfies(faces);
  const shot = TURNED_SHOT;
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
