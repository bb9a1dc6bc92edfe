// Held-out check of the dlib chip (face-chip-validate.cjs writes the descriptors): node face-chip-split.cjs <descriptors.json>
// Scored as scripts/bench/src/face-search.ts (photo level, maxDistanceFor, stranger check, race photos as strangers).
// Two splits, each both ways: selfies (alternate selfies of each person) and people (alternate people).
// Rule: on the tuning half, the highest threshold of 0.56..0.60 (step 0.005) with 0 wrong photos (dev, hard, race)
// and the nearest wrong photo >= MARGIN (0.005) beyond it; the padding with the better tuning-half recall there. Report the other half.
const fs = require('node:fs');
const { maxDistanceFor, FaceMatrix, nearerToStranger } = require('@em/core/media');
const { photos, rows, selfies } = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
for (const p of photos) p.people = new Set(p.people);
const f32 = (o) => o && Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Float32Array.from(v)]));
for (const r of rows) r.desc = f32(r.desc);
for (const s of selfies) s.desc = f32(s.desc);
const variants = Object.keys(rows[0].desc);
const cropRow = new Map();
rows.forEach((r, i) => { if (photos[r.photo].kind === 'crop') cropRow.set(photos[r.photo].name, i); });
const matrices = Object.fromEntries(variants.map((v) => { const m = new FaceMatrix(); for (const r of rows) m.add(r.desc[v]); return [v, m]; }));
const isDev = (k) => k === 'crop' || k === 'group';

function evaluate(variant, t, keep = () => true, v3strict = true) {
  const matrix = matrices[variant];
  const found = {}, relevant = {};
  let wrongDev = 0, wrongHard = 0, wrongRace = 0, nearestWrong = Infinity;
  const wrongList = [];
  for (const s of selfies) {
    if (!keep(s)) continue;
    for (const p of photos) if (p.name !== s.name && p.source !== s.name && p.people.has(s.person)) relevant[p.kind] = (relevant[p.kind] ?? 0) + 1;
    if (!s.desc) continue;
    const q = s.desc[variant];
    const absent = (row) => row === cropRow.get(s.name) || photos[rows[row].photo].source === s.name;
    const nearest = new Map();
    for (const h of matrix.within(q, 2, matrix.size)) {
      if (absent(h.row)) continue;
      const r = rows[h.row];
      const limit = maxDistanceFor(v3strict ? r.version : 2, t, r.quality);
      if (h.distance <= limit && nearerToStranger(matrix, q, h.row, h.distance, (a, b) => rows[a].photo === rows[b].photo, absent)) continue;
      const w = h.distance + t - limit;
      nearest.set(r.photo, Math.min(nearest.get(r.photo) ?? Infinity, w));
    }
    for (const [i, d] of nearest) {
      const p = photos[i];
      if (!p.people.has(s.person)) nearestWrong = Math.min(nearestWrong, d);
      if (d > t) continue;
      if (p.people.has(s.person)) found[p.kind] = (found[p.kind] ?? 0) + 1;
      else { if (isDev(p.kind)) wrongDev++; else if (p.kind === 'race') wrongRace++; else wrongHard++; wrongList.push(`${s.name}->${p.name} ${d.toFixed(3)}`); }
    }
  }
  const sum = (o, f) => Object.entries(o).filter(([k]) => f(k)).reduce((a, [, v]) => a + v, 0);
  const recall = sum(found, isDev) / sum(relevant, isDev);
  const hardRecall = sum(found, (k) => !isDev(k) && k !== 'race') / sum(relevant, (k) => !isDev(k) && k !== 'race');
  return { recall, hardRecall, wrongDev, wrongHard, wrongRace, wrong: wrongDev + wrongHard + wrongRace, nearestWrong, wrongList };
}
const fmt = (e, t) => `recall ${e.recall.toFixed(3)} hard ${e.hardRecall.toFixed(3)} wrong ${e.wrongDev}/${e.wrongHard}/${e.wrongRace} nearest wrong ${e.nearestWrong.toFixed(3)} (margin ${(e.nearestWrong - t).toFixed(3)})`;
const MARGIN = Number(process.env.MARGIN ?? 0.005);
const GRID = [0.56, 0.565, 0.57, 0.575, 0.58, 0.585, 0.59, 0.595, 0.6];
console.log(`${rows.length} face rows (${rows.filter((r) => photos[r.photo].kind === 'race').length} on race photos), ${selfies.filter((s) => s.desc).length} selfies, ${photos.length} photos; wrong = dev/hard/race`);
console.log('\n## all selfies');
if (!process.env.SPLIT_ONLY) for (const v of variants) for (const strict of [true, false]) {
  console.log(`${v}${strict ? '' : ' (second-detector faces NOT stricter)'}`);
  for (const t of GRID) console.log(`  t=${t.toFixed(3)}: ${fmt(evaluate(v, t, undefined, strict), t)}`);
}
const people = [...new Set(selfies.map((s) => s.person))].sort();
const index = new Map();
const splits = {
  selfies: (s) => { const list = selfies.filter((x) => x.person === s.person); return list.indexOf(s) % 2; },
  people: (s) => people.indexOf(s.person) % 2,
};
for (const [name, half] of Object.entries(splits)) {
  for (const tuneHalf of [0, 1]) {
    const tune = (s) => half(s) === tuneHalf, test = (s) => half(s) !== tuneHalf;
    console.log(`\n## split by ${name}, tune on half ${tuneHalf} (${selfies.filter(tune).length} selfies), report half ${1 - tuneHalf} (${selfies.filter(test).length})`);
    const picks = [];
    for (const v of variants) {
      let pick = null;
      for (const t of GRID) { const e = evaluate(v, t, tune); if (e.wrong === 0 && e.nearestWrong - t >= MARGIN) pick = { t, e }; }
      if (!pick) { console.log(`  ${v}: no threshold passes the rule on the tuning half`); continue; }
      const held = evaluate(v, pick.t, test);
      picks.push({ v, ...pick, held });
      console.log(`  ${v}: tuned t=${pick.t.toFixed(3)} (tune ${fmt(pick.e, pick.t)}); HELD-OUT at that t: ${fmt(held, pick.t)}${held.wrongList.length ? ` [${held.wrongList.join('; ')}]` : ''}; held-out at 0.56: ${fmt(evaluate(v, 0.56, test), 0.56)}`);
    }
    const chosen = picks.filter((p) => p.v !== 'current').sort((a, b) => b.e.recall - a.e.recall)[0];
    if (chosen) console.log(`  -> chip chosen on the tuning half: ${chosen.v} at ${chosen.t}; held-out ${fmt(chosen.held, chosen.t)}`);
  }
}
