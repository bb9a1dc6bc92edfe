// node scripts/bench/probe/race-faces.cjs: the faces of the race photos through the photo path (without
// the head pass): per photo, the preview's hash, the count, and each face's version, place and first
// descriptor values, to compare two builds (a change of the preview's pixels moves which faces are found).
const req = require;
req('reflect-metadata');
const fs = require('node:fs'); const path = require('node:path'); const crypto = require('node:crypto');
const { renderPreviews } = req('@em/core/media');
const { FaceAnalyzer, PHOTO_FACE_OPTIONS } = req('@em/ml-worker');
const dir = path.resolve(__dirname, '../../../../shared/fixtures/bibs');
(async () => {
  const faces = new FaceAnalyzer(); await faces.load();
  const files = fs.readdirSync(dir).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort();
  let total = 0;
  for (const f of files) {
    const { plainLarge } = await renderPreviews(fs.readFileSync(path.join(dir, f)));
    const found = await faces.detectAll(plainLarge.buffer, { ...PHOTO_FACE_OPTIONS, personHeads: false });
    total += found.length;
    console.log(f, crypto.createHash('md5').update(plainLarge.buffer).digest('hex').slice(0, 8), found.length, found.map((d) => `${d.descriptorVersion}:${Math.round(d.box.x * 1000)},${Math.round(d.box.y * 1000)}:${d.descriptor.slice(0, 2).map((v) => v.toFixed(4)).join('/')}`).join(' '));
  }
  console.log('total', total);
  process.exit(0);
})();
