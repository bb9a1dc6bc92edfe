// The photo face path of the base and of the branch on the same photos, in one process: faces, boxes and descriptors compared value for value
// (the branch's tfjs-wasm Concat and BlazeFace settings must not change a photo's faces). The base runs with tfjs-wasm's own Concat kernel.
// BASE=<a compiled ml-worker dist of the base commit> NODE_PATH=node_modules node scripts/bench/probe/photo-faces-identical.cjs
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const tf = require('@tensorflow/tfjs');
require('@tensorflow/tfjs-backend-wasm');
const originalConcat = tf.getKernel('Concat', 'wasm');
const builds = { base: require(process.env.BASE), branch: require('@em/ml-worker') };
const FIX = path.resolve(__dirname, '../../../../shared/fixtures');

(async () => {
  const analyzers = {};
  for (const [name, build] of Object.entries(builds)) { analyzers[name] = new build.FaceAnalyzer(); await analyzers[name].load(); }
  const fastConcat = tf.getKernel('Concat', 'wasm');
  const useConcat = (k) => { tf.unregisterKernel('Concat', 'wasm'); tf.registerKernel(k); };
  const files = [];
  for (const d of fs.readdirSync(path.join(FIX, 'faces'))) for (const f of fs.readdirSync(path.join(FIX, 'faces', d)).slice(0, d === 'group' ? 99 : 2)) files.push(path.join(FIX, 'faces', d, f));
  for (const f of fs.readdirSync(path.join(FIX, 'bibs')).filter((f) => /\.(jpe?g|png)$/i.test(f)).slice(0, 6)) files.push(path.join(FIX, 'bibs', f));
  let faces = 0, worst = 0, differ = 0;
  for (const file of files) {
    const image = fs.readFileSync(file);
    useConcat(originalConcat);
    const a = await analyzers.base.detectAll(image, builds.base.PHOTO_FACE_OPTIONS);
    useConcat(fastConcat);
    const b = await analyzers.branch.detectAll(image, builds.branch.PHOTO_FACE_OPTIONS);
    if (a.length !== b.length) { differ++; console.log('count differs', file, a.length, b.length); continue; }
    for (let i = 0; i < a.length; i++) {
      faces++;
      const boxDiff = Math.max(...['x', 'y', 'width', 'height'].map((k) => Math.abs(a[i].box[k] - b[i].box[k])));
      const d = Math.max(boxDiff, ...Array.from(a[i].descriptor, (v, j) => Math.abs(v - b[i].descriptor[j])));
      worst = Math.max(worst, d);
      if (d > 0 || a[i].descriptorVersion !== b[i].descriptorVersion) { differ++; console.log('face differs', file, i, d); }
    }
  }
  console.log(`${files.length} photos, ${faces} faces; faces or photos that differ: ${differ}; largest difference of a box or descriptor value: ${worst}`);
})();
