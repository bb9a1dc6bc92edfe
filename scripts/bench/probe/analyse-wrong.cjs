// Which faces of the harder set come near other people's selfies, and how do they score? (issue 17)
// node scripts/bench/probe/analyse-wrong.cjs  (after npm run build)
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const { FaceAnalyzer, PHOTO_FACE_OPTIONS } = require('@em/ml-worker');
const { hardFaceSet } = require('../dist/faces-hard-set.js');
const { FIX, faceCrops, selfiesOf } = require('./face-crops.cjs');
(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const crops = faceCrops();
  const selfies = await selfiesOf(faces, crops);
  const rows = [];
  for (const h of await hardFaceSet(crops)) {
    const tiny = await faces.detectAll(h.image, { ...PHOTO_FACE_OPTIONS, detector: 'tiny' });
    const both = await faces.detectAll(h.image, PHOTO_FACE_OPTIONS);
    for (const f of both) {
      const byTiny = tiny.some((t) => Math.abs(t.box.x - f.box.x) < 1e-6 && Math.abs(t.box.y - f.box.y) < 1e-6);
      let same = Infinity, other = Infinity, otherWho = '';
      for (const s of selfies) {
        if (!s.d || s.name === h.source) continue;
        let d = 0; for (let i = 0; i < 128; i++) d += (s.d[i] - f.descriptor[i]) ** 2; d = Math.sqrt(d);
        if (s.person === h.person) same = Math.min(same, d); else if (d < other) { other = d; otherWho = s.name; }
      }
      rows.push({ kind: h.kind, source: h.source, detector: byTiny ? 'tiny' : 'blaze', score: +f.score.toFixed(3), w: Math.round(f.box.width * 1000) / 1000, same: +same.toFixed(3), other: +other.toFixed(3), otherWho });
    }
  }
  fs.writeFileSync('/tmp/faces-wrong.json', JSON.stringify(rows, null, 1));
  const near = rows.filter((r) => r.other < 0.6).sort((a, b) => a.other - b.other);
  console.log('faces of the hard set within 0.6 of another person:', near.length, 'of', rows.length);
  for (const r of near) console.log(JSON.stringify(r));
  const by = (k) => { const g = {}; for (const r of rows) (g[r[k]] ??= []).push(r); return g; };
  for (const [k, v] of Object.entries(by('detector'))) console.log(k, v.length, 'min other', Math.min(...v.map((r) => r.other)).toFixed(3), 'same<0.56', v.filter((r) => r.same < 0.56).length);
})().catch((e) => { console.error(e); process.exit(1); });
