// Head regions of the race photos: their size, the faces found in each and the CPU of each (after npm run build).
require('reflect-metadata');
const path = require('node:path'); const fs = require('node:fs');
const { renderPreviews, openImage } = require('@em/core/media');
const { FaceAnalyzer, PHOTO_FACE_OPTIONS, PersonDetector, OCR_MAX_SIDE } = require('@em/ml-worker');
const { headRegions, facesInRegions } = require('../../../ml-worker/dist/faces/head-regions.js');
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');
const cpuMs = (s) => { const u = process.cpuUsage(s); return (u.user + u.system) / 1000; };
(async () => {
  const faces = new FaceAnalyzer(); await faces.load();
  const persons = new PersonDetector(); await persons.load();
  let cpuAll = 0;
  for (const f of fs.readdirSync('/work/shared/fixtures/bibs').filter((f) => /jpe?g$/i.test(f))) {
    const orig = fs.readFileSync(path.join('/work/shared/fixtures/bibs', f));
    const { data: d0, info: i0 } = await openImage(orig).rotate().resize(OCR_MAX_SIDE, OCR_MAX_SIDE, { fit: 'inside', withoutEnlargement: true }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const people = await persons.detect({ data: d0, width: i0.width, height: i0.height });
    const { plainLarge } = await renderPreviews(orig);
    const found = await faces.detectAll(plainLarge.buffer, { ...PHOTO_FACE_OPTIONS, personHeads: false, minFaceWidth: 0 });
    const { data, info } = await openImage(plainLarge.buffer).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const W = info.width, H = info.height;
    const tensor = faceapi.tf.tensor3d(data, [H, W, 3], 'int32');
    const fb = found.map((x) => ({ x: x.box.x * W, y: x.box.y * H, width: x.box.width * W, height: x.box.height * H }));
    console.log(f, 'found', fb.map((b) => b.width.toFixed(0)).join(' '));
    const regions = headRegions(people, fb, W, H, { minPersonScore: 0.3, minRegionSide: 0, cropSide: 224, inputSize: 224, scoreThreshold: 0.5 });
    for (const r of regions) {
      const c = process.cpuUsage();
      const got = await facesInRegions(tensor, [r], { minPersonScore: 0.3, minRegionSide: 0, cropSide: 224, inputSize: 224, scoreThreshold: 0.5 });
      const ms = cpuMs(c); cpuAll += ms;
      console.log(`  region ${r.width}x${r.height} -> ${got.map((g) => g.box.width.toFixed(0)).join(' ') || '-'} ${ms.toFixed(0)} ms`);
    }
    tensor.dispose();
  }
  console.log('head pass cpu per photo', (cpuAll / 6).toFixed(0));
})();
