// node scripts/bench/probe/pipeline-ab.cjs [rounds]: the photo job as the bench's photo-pipeline runs it with N photos
// at once and N OCR threads, the steps up to stop 19 (STEPS_BEFORE) and the worker's (WORKER_STEPS) alternately in
// one process, CPU per photo of each pass (process.cpuUsage, OCR threads included): a same-run A/B on a loaded machine.
// The "before" passes also run on tfjs-wasm's own Concat kernel (useFastConcat replaces it in the face analyser's thread).
require('reflect-metadata');
const tf = require('@tensorflow/tfjs');
require('@tensorflow/tfjs-backend-wasm');
const wasmConcat = tf.getKernel('Concat', 'wasm');
const path = require('node:path');
const { availableParallelism } = require('node:os');
const { BibReaderPool, FaceAnalyzer, PHOTO_FACE_OPTIONS } = require('@em/ml-worker');
const { racePhotos, STEPS_BEFORE, WORKER_STEPS } = require('../dist/photo-pipeline');
const fixtures = path.resolve(__dirname, '../../../../shared/fixtures');
(async () => {
  const rounds = Number(process.argv[2] ?? 2);
  const race = racePhotos(fixtures);
  const photos = [...race, ...race];
  const faces = new FaceAnalyzer(); await faces.load();
  const interleavedConcat = tf.getKernel('Concat', 'wasm');
  const concat = (kernel) => { tf.unregisterKernel('Concat', 'wasm'); tf.registerKernel(kernel); };
  const n = availableParallelism();
  const pool = new BibReaderPool(n); await pool.load();
  await pool.read(photos[0].file);
  await faces.detectAll(photos[0].file);
  const pass = async (job) => {
    const queue = [...photos];
    const cpu0 = process.cpuUsage();
    await Promise.all(Array.from({ length: n }, async () => {
      for (let p = queue.shift(); p; p = queue.shift()) {
        const decoded = await job.previews(p.file);
        const { people } = await job.bibs(pool, p.file, decoded);
        await job.faces(faces, decoded, PHOTO_FACE_OPTIONS, people ?? []);
      }
    }));
    const c = process.cpuUsage(cpu0);
    return (c.user + c.system) / 1e6 / photos.length;
  };
  const sums = { before: 0, after: 0 };
  for (let r = 0; r < rounds; r++) {
    for (const [label, job] of r % 2 ? [['after', WORKER_STEPS], ['before', STEPS_BEFORE]] : [['before', STEPS_BEFORE], ['after', WORKER_STEPS]]) {
      concat(label === 'before' ? wasmConcat : interleavedConcat);
      const s = await pass(job);
      sums[label] += s;
      console.log(`round ${r + 1} ${label}: ${s.toFixed(2)} s CPU per photo, ${n} at once`);
    }
  }
  console.log(`mean over ${rounds} rounds: before ${(sums.before / rounds).toFixed(2)} s, after ${(sums.after / rounds).toFixed(2)} s`);
  await pool.close();
  process.exit(0);
})();
