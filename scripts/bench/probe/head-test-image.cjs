// Which demo photo, shrunk on a larger canvas, has a face only the head pass finds (for head-regions.test.ts).
require('reflect-metadata');
const path = require('node:path'); const fs = require('node:fs');
const sharp = require('sharp');
const { FaceAnalyzer, PHOTO_FACE_OPTIONS, PersonDetector } = require('@em/ml-worker');
const demo = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
(async () => {
  const faces = new FaceAnalyzer(); await faces.load();
  const persons = new PersonDetector(); await persons.load();
  for (const f of ['sample1.jpg', 'sample2.jpg', 'sample3.jpg', 'sample4.jpg', 'sample5.jpg', 'sample6.jpg']) {
    for (const k of [0.35, 0.45, 0.55]) {
      const small = await sharp(path.join(demo, f)).resize(Math.round(1920 * k)).png().toBuffer();
      const photo = await sharp({ create: { width: 1920, height: 1280, channels: 3, background: { r: 110, g: 110, b: 110 } } }).composite([{ input: small, left: 300, top: 200 }]).jpeg({ quality: 92 }).toBuffer();
      const { data, info } = await sharp(photo).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const people = await persons.detect({ data, width: info.width, height: info.height });
      const whole = await faces.detectAll(photo, { ...PHOTO_FACE_OPTIONS, personHeads: false });
      const heads = await faces.detectAll(photo, PHOTO_FACE_OPTIONS, people);
      console.log(f, k, 'people', people.filter((p) => p.score >= 0.3).length, 'whole', whole.map((x) => (x.box.width * 1920).toFixed(0)).join(' '), '| with heads', heads.map((x) => `${(x.box.width * 1920).toFixed(0)}v${x.descriptorVersion}`).join(' '));
    }
  }
})();
