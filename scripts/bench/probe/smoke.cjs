const { loadAll } = require('./models.cjs');
const sharp = require('sharp');
(async () => {
  const m = await loadAll({ extra: ['mobilefacenet', 'faceres-deep', 'mobileface'] });
  console.log('backend', m.tf.getBackend(), Object.keys(m.graphs).map((k) => [k, m.graphs[k].inputs[0].shape, m.graphs[k].outputs.map((o) => o.shape)]));
  const { data, info } = await sharp('/work/shared/fixtures/faces/group/bbt1.jpg').removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const t = m.tf.tensor3d(data, [info.height, info.width, 3], 'int32');
  const r = await m.human.detect(t);
  console.log(r.face.length, r.face.map((f) => [f.box, f.score.toFixed(2), f.embedding?.length, f.tensor?.shape]));
})();
