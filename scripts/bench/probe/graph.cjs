const path = require('node:path');
const fs = require('node:fs');
/** A tfjs graph model from a folder on disk (model.json + shards), no fetch. */
async function loadGraphFromDir(tf, dir, name) {
  const json = JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8'));
  const data = Buffer.concat(json.weightsManifest.flatMap((g) => g.paths.map((p) => fs.readFileSync(path.join(dir, p)))));
  const weightData = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
  return tf.loadGraphModel(tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs: json.weightsManifest.flatMap((g) => g.weights), weightData, format: json.format, generatedBy: json.generatedBy, convertedBy: json.convertedBy, signature: json.signature, userDefinedMetadata: json.userDefinedMetadata, modelInitializer: json.modelInitializer }));
}
module.exports = { loadGraphFromDir };
