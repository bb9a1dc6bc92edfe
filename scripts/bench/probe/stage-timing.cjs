// Preload (node -r) for the face probes: CPU and calls per stage of the face path (tiny, SSD, landmarks, descriptors, BlazeFace, refinement), printed at exit.
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');
const refine = require('../../../ml-worker/dist/faces/refine-face.js');
const blaze = require('../../../ml-worker/dist/faces/blazeface-detector.js');
const totals = {}; const counts = {};
const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
function wrap(obj, key, label) {
  const orig = obj[key];
  obj[key] = async function (...args) { const t = cpu(); try { return await orig.apply(this, args); } finally { totals[label] = (totals[label] || 0) + cpu() - t; counts[label] = (counts[label] || 0) + 1; } };
}
wrap(refine, 'refineFace', 'refineFace (incl. its tiny/ssd/landmarks)');
wrap(blaze.BlazeFaceDetector.prototype, 'detect', 'blazeface+mesh detect');
wrap(faceapi.nets.faceRecognitionNet, 'computeFaceDescriptor', 'descriptor');
wrap(faceapi.nets.tinyFaceDetector, 'locateFaces', 'tiny locateFaces (all)');
wrap(faceapi.nets.ssdMobilenetv1, 'locateFaces', 'ssd locateFaces (all)');
wrap(faceapi.nets.faceLandmark68Net, 'detectLandmarks', 'landmarks (all)');
process.on('exit', () => { for (const k of Object.keys(totals)) console.log(`${(totals[k] / 1000).toFixed(0).padStart(7)} ms ${String(counts[k]).padStart(5)} calls  ${k}`); });
