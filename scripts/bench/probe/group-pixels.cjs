// node scripts/bench/probe/group-pixels.cjs: the faces of the group shots found on the large preview's JPEG (mozjpeg q82,
// the worker up to stop 19) and on its pixels before encoding: per face, who it is (GROUP_FACES), its nearest selfie of
// someone else (crops through the selfie path) and of the same person, raw euclidean distances.
require('reflect-metadata');
const fs = require('node:fs'); const path = require('node:path');
const sharp = require('sharp');
const { renderPreviews } = require('@em/core/media');
const { FaceAnalyzer, PHOTO_FACE_OPTIONS } = require('@em/ml-worker');
const { GROUP_FACES } = require('../dist/faces-ground-truth');
const dir = path.resolve(__dirname, '../../../../shared/fixtures/faces');
const dist = (a, b) => Math.sqrt(a.reduce((s, v, i) => s + (v - b[i]) ** 2, 0));
(async () => {
  const faces = new FaceAnalyzer(); await faces.load();
  const selfies = [];
  for (const person of fs.readdirSync(dir).filter((p) => p !== 'group' && !p.startsWith('.')).sort())
    for (const f of fs.readdirSync(path.join(dir, person)).filter((n) => /\.(png|jpe?g)$/i.test(n)).sort()) {
      const { descriptor } = await faces.embedSelfie(fs.readFileSync(path.join(dir, person, f)));
      if (descriptor) selfies.push({ person, name: `${person}/${f}`, descriptor });
    }
  const options = process.env.TINY_ALONE ? { ...PHOTO_FACE_OPTIONS, detector: 'tiny', personHeads: false } : { ...PHOTO_FACE_OPTIONS, personHeads: false };
  for (const [shot, labels] of Object.entries(GROUP_FACES)) {
    const original = fs.readFileSync(path.join(dir, 'group', shot));
    const { largePixels: p } = await renderPreviews(original);
    const jpeg = await sharp(p.data, { raw: { width: p.width, height: p.height, channels: 3 } }).jpeg({ quality: 82, mozjpeg: true }).toBuffer();
    const meta = await sharp(original).metadata();
    for (const [label, found] of [['jpeg', await faces.detectAll(jpeg, options)], ['pixels', await faces.detectAllPixels(p, options)]]) {
      for (const face of found) {
        const b = face.box;
        const who = labels.find(([, x, y]) => x >= b.x * meta.width && x <= (b.x + b.width) * meta.width && y >= b.y * meta.height && y <= (b.y + b.height) * meta.height)?.[0] ?? 'none';
        const other = selfies.filter((s) => s.person !== who).map((s) => [s.name, dist(s.descriptor, face.descriptor)]).sort((x, y) => x[1] - y[1])[0];
        const same = selfies.filter((s) => s.person === who).map((s) => dist(s.descriptor, face.descriptor)).sort((x, y) => x - y)[0];
        console.log(`${shot} ${label.padEnd(6)} ${who.padEnd(10)} v${face.descriptorVersion} box ${Math.round(b.x * meta.width)},${Math.round(b.y * meta.height)} ${Math.round(b.width * meta.width)}px  nearest other ${other[0]} ${other[1].toFixed(3)}  nearest same ${same?.toFixed(3) ?? '-'}`);
      }
    }
  }
  process.exit(0);
})();
