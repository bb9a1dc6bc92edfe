// Figures from the descriptors align.cjs saved: node analyse.cjs descriptors.json
// Scoring as scripts/bench/src/face-search.ts (photo level, limits by version and quality, stranger check),
// and also without the stranger check (raw separation of the descriptors).
const req = require;
const fs = require('node:fs');
const { maxDistanceFor, FaceMatrix, nearerToStranger, percentToDistance, DEFAULT_MATCH_PERCENT } = req('@em/core/media');
const { photos, rows, selfies } = JSON.parse(fs.readFileSync(process.argv[2] ?? require('node:path').join(require('node:os').tmpdir(), 'face-chip-align', 'descriptors.json'), 'utf8'));
for (const p of photos) p.people = new Set(p.people);
const f32 = (o) => o && Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Float32Array.from(v)]));
for (const r of rows) r.desc = f32(r.desc);
for (const s of selfies) s.desc = f32(s.desc);
const variants = Object.keys(rows[0].desc);
const dist = (a, b) => { let d = 0; for (let i = 0; i < 128; i++) d += (a[i] - b[i]) ** 2; return Math.sqrt(d); };
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const cropRow = new Map();
rows.forEach((r, i) => { if (photos[r.photo].kind === 'crop') cropRow.set(photos[r.photo].name, i); });
const matrices = Object.fromEntries(variants.map((v) => { const m = new FaceMatrix(); for (const r of rows) m.add(r.desc[v]); return [v, m]; }));

function evaluate(variant, maxDistance, strangerCheck = true) {
  const matrix = matrices[variant];
  const found = { crop: 0, group: 0 }, relevant = { crop: 0, group: 0 }, wrongList = [];
  let wrong = 0, wrongHard = 0, nearestWrong = Infinity, nearestWrongHard = Infinity;
  const missed = [];
  for (const s of selfies) {
    for (const p of photos) if (p.name !== s.name && p.source !== s.name && p.people.has(s.person)) relevant[p.kind] = (relevant[p.kind] ?? 0) + 1;
    if (!s.desc) continue;
    const q = s.desc[variant];
    const absent = (row) => row === cropRow.get(s.name) || photos[rows[row].photo].source === s.name;
    const nearest = new Map();
    for (const h of matrix.within(q, 2, matrix.size)) {
      if (absent(h.row)) continue;
      const limit = maxDistanceFor(rows[h.row].version, maxDistance, rows[h.row].quality);
      if (strangerCheck && h.distance <= limit && nearerToStranger(matrix, q, h.row, h.distance, (a, b) => rows[a].photo === rows[b].photo, absent)) continue;
      const w = h.distance + maxDistance - limit;
      nearest.set(rows[h.row].photo, Math.min(nearest.get(rows[h.row].photo) ?? Infinity, w));
    }
    for (const [i, p] of photos.entries()) {
      if (p.kind === 'crop' || p.kind === 'group') if (p.name !== s.name && p.people.has(s.person) && !((nearest.get(i) ?? Infinity) <= maxDistance)) missed.push(`${s.name}->${p.name} ${(nearest.get(i) ?? Infinity).toFixed(3)}`);
    }
    for (const [i, d] of nearest) {
      const p = photos[i];
      const dev = p.kind === 'crop' || p.kind === 'group';
      if (!p.people.has(s.person)) { if (dev) nearestWrong = Math.min(nearestWrong, d); else nearestWrongHard = Math.min(nearestWrongHard, d); }
      if (d > maxDistance) continue;
      if (p.people.has(s.person)) { if (p.source !== s.name) found[p.kind] = (found[p.kind] ?? 0) + 1; }
      else if (dev) wrong++;
      else wrongHard++;
      if (!p.people.has(s.person)) wrongList.push(`${s.name}->${p.name} ${d.toFixed(3)}`);
    }
  }
  const hardKinds = Object.keys(relevant).filter((k) => k !== 'crop' && k !== 'group');
  const hardFound = hardKinds.reduce((a, k) => a + (found[k] ?? 0), 0), hardRelevant = hardKinds.reduce((a, k) => a + relevant[k], 0);
  return { wrongList, hardRecall: hardRelevant ? `${(hardFound / hardRelevant).toFixed(3)} (${hardKinds.map((k) => `${k} ${((found[k] ?? 0) / relevant[k]).toFixed(2)}`).join(', ')})` : '-', recall: (found.crop + found.group) / (relevant.crop + relevant.group), crops: found.crop / relevant.crop, group: found.group / relevant.group, wrong, wrongHard, nearestWrong, nearestWrongHard, missed };
}

const threshold = percentToDistance(DEFAULT_MATCH_PERCENT);
const hard = photos.some((p) => p.kind !== 'crop' && p.kind !== 'group');
console.log(`threshold ${threshold.toFixed(3)}; ${rows.length} face rows, ${selfies.filter((s) => s.desc).length} selfies, ${photos.length} photos${hard ? ' (harder set included as photos)' : ''}`);
for (const strangerCheck of [true, false]) {
  console.log(`\n### ${strangerCheck ? 'as the product matches (stranger check on)' : 'raw distances (stranger check off)'}`);
  console.log('| variant | recall @0.560 (crops/group) | missed pairs | wrong dev/hard | nearest wrong photo dev/hard | same-person face pairs mean / p90 | wrong-person face pairs min / p1 | best recall at 0 wrong (t in 0.50–0.62) |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const v of variants) {
    const same = [], other = [];
    for (const s of selfies) {
      if (!s.desc) continue;
      for (const r of rows) {
        const p = photos[r.photo];
        if (p.name === s.name || p.source === s.name || r.label === 'none' || r.label === 'unknown') continue;
        if (p.kind !== 'crop' && p.kind !== 'group' && r.label === s.person) continue; // hard same-person pairs: other figures
        (r.label === s.person ? same : other).push(dist(s.desc[v], r.desc[v]));
      }
    }
    const at = evaluate(v, threshold, strangerCheck);
    let best = null;
    for (let t = 0.5; t <= 0.62001; t += 0.0025) {
      const e = evaluate(v, t, strangerCheck);
      if (e.wrong + e.wrongHard > 0) break; // first threshold with a wrong-person photo: stop
      if (!best || e.recall >= best.recall) best = { t, ...e };
    }
    console.log(`| ${v} | ${at.recall.toFixed(3)} (${at.crops.toFixed(3)}/${at.group.toFixed(3)}) | ${at.missed.length} | ${at.wrong}/${at.wrongHard} | ${at.nearestWrong.toFixed(3)}/${at.nearestWrongHard === Infinity ? '-' : at.nearestWrongHard.toFixed(3)} | ${(same.reduce((a, b) => a + b, 0) / same.length).toFixed(4)} / ${pct(same, 0.9).toFixed(3)} | ${Math.min(...other).toFixed(3)} / ${pct(other, 0.01).toFixed(3)} | ${best ? `${best.recall.toFixed(3)} up to t=${best.t.toFixed(4)}` : 'none'} |`);
    if (strangerCheck && (v === 'current' || v === 'rot' || v.startsWith('dlib'))) console.log(`  missed (${v}): ${at.missed.join('; ')}\n  wrong (${v}): ${at.wrongList.join('; ')}\n  hard recall (${v}): ${at.hardRecall}`);
  }
}
if (process.env.SWEEP) {
  console.log('\n### threshold sweep (as the product matches)\n| variant | ' + [0.56, 0.57, 0.58, 0.59, 0.6].map((t) => `t=${t}: dev recall / wrong dev+hard / hard recall`).join(' | ') + ' |');
  for (const v of process.env.SWEEP.split(',')) {
    console.log(`| ${v} | ` + [0.56, 0.57, 0.58, 0.59, 0.6].map((t) => { const e = evaluate(v, t); return `${e.recall.toFixed(3)} / ${e.wrong}+${e.wrongHard} / ${e.hardRecall.split(' ')[0]}`; }).join(' | ') + ' |');
  }
}
if (process.env.CROSS) {
  // selfie embedded one way, indexed faces the other (a migration period without re-embedding)
  const [qv, rv] = process.env.CROSS.split(',');
  for (const s of selfies) if (s.desc) s.desc.__cross = s.desc[qv];
  variants.push('__cross');
  matrices.__cross = matrices[rv];
  for (const t of [0.56, 0.58]) { const e = evaluate('__cross', t); console.log(`cross selfie ${qv} vs faces ${rv} at ${t}: dev recall ${e.recall.toFixed(3)}, wrong ${e.wrong}+${e.wrongHard}, hard recall ${e.hardRecall}`); }
}
