// The BIB reader's CPU with and without luminanceWhereNoNumber, each photo read by both in turn in one process, so a
// neighbour's load falls on both: node scripts/bench/probe/bib-cpu-interleaved.cjs bibs bibs-640 rbnr rbnr-yellow
const sharp = require('sharp');
const fs = require('node:fs');
const path = require('node:path');
const { BibReader } = require('@em/ml-worker');

const FIXTURES = path.join(__dirname, '..', '..', '..', '..', 'shared', 'fixtures');
// The bench's generated races (scripts/bench/src/bib-races.ts), made the same way.
const GENERATED = {
  'rbnr-yellow': [
    'rbnr',
    (i) =>
      i
        .recomb([
          [1, 0, 0],
          [0, 0.9, 0],
          [0, 0, 0.3],
        ])
        .jpeg({ quality: 90 }),
  ],
  'rbnr-q40': ['rbnr', (i) => i.jpeg({ quality: 40 })],
  'bibs-640': ['bibs', (i) => i.resize({ width: 640 }).jpeg({ quality: 90 })],
  'bibs-1024': ['bibs', (i) => i.resize({ width: 1024 }).jpeg({ quality: 90 })],
};

async function main() {
  const reader = new BibReader();
  await reader.load();
  const variants = [reader.withOptions({ luminanceWhereNoNumber: false }), reader.withOptions({})];
  for (const race of process.argv.slice(2)) {
    const [folder, make] = GENERATED[race] ?? [race, null];
    const truth = fs.readFileSync(path.join(FIXTURES, folder, 'ground-truth.csv'), 'utf8');
    const names = truth
      .split(/\r?\n/)
      .map((l) => l.split(';')[0])
      .filter(Boolean);
    const cpu = [0, 0];
    for (const name of names) {
      let file = fs.readFileSync(path.join(FIXTURES, folder, name));
      if (make) file = await make(sharp(file).rotate()).toBuffer();
      for (const k of [0, 1]) {
        const c0 = process.cpuUsage();
        await variants[k].candidates(file);
        const c = process.cpuUsage(c0);
        cpu[k] += (c.user + c.system) / 1e6;
      }
    }
    const [before, now] = cpu.map((c) => (c / names.length).toFixed(3));
    console.log(
      `${race}: ${names.length} photos, CPU s/photo before ${before}, now ${now}, ratio ${(cpu[1] / cpu[0]).toFixed(3)}`,
    );
  }
}

main().then(() => process.exit(0));
