// node scripts/bench/probe/selfie-chip-cost.cjs: CPU of a selfie's embedding with and without the box-family descriptor (alternating, 40 crops x 2 rounds).
const path = require('node:path');
const fs = require('node:fs');
const { FaceAnalyzer } = require('@em/ml-worker');
const FIX = path.resolve(__dirname, '../../../../shared/fixtures/faces');
(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const images = [];
  for (const p of fs.readdirSync(FIX).filter((p) => p !== 'group').sort()) for (const f of fs.readdirSync(path.join(FIX, p)).sort()) images.push(fs.readFileSync(path.join(FIX, p, f)));
  for (const img of images.slice(0, 3)) await faces.embedSelfie(img);
  const cpu = { both: 0, chip: 0 };
  for (let round = 0; round < 2; round++) for (const img of images) {
    for (const mode of round % 2 ? ['both', 'chip'] : ['chip', 'both']) {
      const t = process.cpuUsage();
      await faces.embedSelfie(img, { boxDescriptor: mode === 'both' });
      const d = process.cpuUsage(t); cpu[mode] += (d.user + d.system) / 1000;
    }
  }
  const n = images.length * 2;
  console.log(`selfie CPU per selfie: chip only ${(cpu.chip / n).toFixed(1)} ms, chip + box ${(cpu.both / n).toFixed(1)} ms (${n} selfies each)`);
})();
