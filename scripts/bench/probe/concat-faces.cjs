// node scripts/bench/probe/concat-faces.cjs: the faces of the race and group photos (worker path: the large preview
// JPEG, people from the person detector) with tfjs-wasm's own Concat kernel and with useFastConcat, in one
// process: CPU of the face step per photo, and a hash of every box, score and descriptor (equal = bit for bit).
require('reflect-metadata');
const fs = require('node:fs'); const path = require('node:path'); const crypto = require('node:crypto');
const tf = require('@tensorflow/tfjs');
const { renderPreviews } = require('@em/core/media');
const { FaceAnalyzer, PersonDetector, PHOTO_FACE_OPTIONS } = require('@em/ml-worker');
const { decodePhoto, withAlpha } = require('@em/core/media');
const fixtures = path.resolve(__dirname, '../../../../shared/fixtures');
require('@tensorflow/tfjs-backend-wasm'); // registers the wasm kernels
const wasmConcat = tf.getKernel('Concat', 'wasm'); // tfjs-wasm's own, before useFastConcat replaces it
(async () => {
  const faces = new FaceAnalyzer(); await faces.load(); // registers the interleaved Concat
  const persons = new PersonDetector(); await persons.load();
  const fast = tf.getKernel('Concat', 'wasm');
  const photos = [];
  for (const dir of ['bibs', 'faces/group']) for (const f of fs.readdirSync(path.join(fixtures, dir)).filter((n) => /\.jpe?g$/i.test(n)).sort()) {
    const original = fs.readFileSync(path.join(fixtures, dir, f));
    const people = await persons.detect(withAlpha(await decodePhoto(original, 2560)));
    photos.push({ name: f, jpeg: (await renderPreviews(original)).plainLarge.buffer, people });
  }
  const pass = async () => {
    const hash = crypto.createHash('md5'); let cpu = 0; let n = 0;
    for (const p of photos) {
      const c0 = process.cpuUsage();
      const found = await faces.detectAll(p.jpeg, PHOTO_FACE_OPTIONS, p.people);
      const c = process.cpuUsage(c0); cpu += (c.user + c.system) / 1000;
      n += found.length;
      for (const f of found) hash.update(JSON.stringify([f.box, f.score, f.descriptorVersion, f.signals])).update(Buffer.from(f.descriptor.buffer));
    }
    return { cpu: cpu / photos.length, hash: hash.digest('hex').slice(0, 12), n };
  };
  const swap = (kernel) => { tf.unregisterKernel('Concat', 'wasm'); tf.registerKernel(kernel); };
  await pass(); // warm
  const rounds = [];
  for (const which of ['interleaved', 'wasm', 'interleaved', 'wasm']) {
    swap(which === 'wasm' ? wasmConcat : fast);
    rounds.push([which, await pass()]);
  }
  for (const [which, r] of rounds) console.log(`${which}: ${r.n} faces, hash ${r.hash}, face step ${r.cpu.toFixed(0)} ms CPU per photo`);
  process.exit(0);
})();
