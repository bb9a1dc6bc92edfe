require('reflect-metadata');
const sharp = require('sharp');
const { FaceAnalyzer } = require('@em/ml-worker');
const { renderPreviews } = require('@em/core/media');
(async () => {
  const f = new FaceAnalyzer(); await f.load();
  const { plainLarge } = await renderPreviews(require('fs').readFileSync('/work/shared/fixtures/faces/group/bbt2.jpg'));
  const { data, info } = await sharp(plainLarge.buffer).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const tf = require('@tensorflow/tfjs');
  const t = tf.tensor3d(data, [info.height, info.width, 3], 'int32');
  console.log(info.width, info.height, JSON.stringify(await f.blazeface.detect(t)));
})();
