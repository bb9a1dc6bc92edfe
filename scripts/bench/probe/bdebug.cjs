const { loadAll } = require('./models.cjs');
const { loadGraphFromDir } = require('./graph.cjs');
const sharp = require('sharp');
(async () => {
  const m = await loadAll({});
  const tf = m.tf;
  const net = await loadGraphFromDir(tf, require('./models.cjs').humanModels, 'faceres');
  const emb = {};
  for (const n of ['amy/1', 'amy/2', 'raj/1', 'raj/2', 'penny/1']) {
    const buf = await sharp(`/work/shared/fixtures/faces/${n}.png`).extend({ top: 40, bottom: 40, left: 40, right: 40, background: { r: 128, g: 128, b: 128 } }).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
    const t = tf.tensor3d(buf.data, [buf.info.height, buf.info.width, 3], 'int32');
    const r = await m.human.detect(t);
    const f = r.face[0];
    const mine = tf.tidy(() => { let o = net.execute(tf.mul(tf.image.resizeBilinear(tf.expandDims(f.tensor, 0), [224, 224]), 255)); console.log(o.map((x)=>x.shape)); o = o.find((x) => x.shape[x.shape.length-1] === 1024); return Array.from(o.dataSync()); });
    emb[n] = { human: f.embedding, mine };
  }
  const names = Object.keys(emb);
  const l2 = (v) => { const s = Math.hypot(...v); return v.map((x) => x / s); };
  const d = (a, b) => Math.hypot(...a.map((x, i) => x - b[i]));
  for (const a of names) console.log(a, names.map((b) => `${b}: h ${m.human.match.similarity(emb[a].human, emb[b].human).toFixed(2)} d ${d(l2(emb[a].human), l2(emb[b].human)).toFixed(3)} mine ${d(l2(emb[a].mine), l2(emb[b].mine)).toFixed(3)}`).join(' | '));
})();
