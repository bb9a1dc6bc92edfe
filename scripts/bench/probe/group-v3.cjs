// The faces only BlazeFace finds on the group shots (version 3) and their nearest selfies.
require('reflect-metadata');
const fs = require('node:fs');
const path = require('node:path');
const { renderPreviews } = require('@em/core/media');
const { FaceAnalyzer } = require('@em/ml-worker');
const FIX = path.resolve(__dirname, '../../../../shared/fixtures/faces');
(async () => {
  const f = new FaceAnalyzer(); await f.load();
  const selfies = [];
  for (const p of fs.readdirSync(FIX).filter((p) => p !== 'group')) for (const n of fs.readdirSync(path.join(FIX, p))) selfies.push({ name: `${p}/${n}`, d: (await f.embedSelfie(fs.readFileSync(path.join(FIX, p, n)))).descriptor });
  for (const shot of fs.readdirSync(path.join(FIX, 'group')).sort()) {
    const { plainLarge } = await renderPreviews(fs.readFileSync(path.join(FIX, 'group', shot)));
    for (const face of await f.detectAll(plainLarge.buffer)) {
      if (face.descriptorVersion !== 3) continue;
      const near = selfies.filter((s) => s.d).map((s) => ({ s: s.name, d: Math.sqrt(s.d.reduce((a, v, i) => a + (v - face.descriptor[i]) ** 2, 0)) })).sort((a, b) => a.d - b.d).slice(0, 4);
      console.log(shot, JSON.stringify(face.box), face.score.toFixed(2), near.map((n) => `${n.s} ${n.d.toFixed(3)}`).join(', '));
    }
  }
})();
