import { judgeBibRead, startListView, StartListView } from '@em/core';
import { BibReader, BibReaderOptions, BibRules, DEFAULT_BIB_RULES, PersonBox, readBibs, TextBox } from '@em/ml-worker';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { BenchRow } from './table';

/** A race of the fixtures: photos with the bibs labelled on each. */
interface Race {
  name: string;
  /** The race a generated one is made of: never trained on when the other is left out. */
  family: string;
  photos: Array<{ name: string; file: Buffer; bibs: Set<string> }>;
}

/** What the reader found on one photo, kept so that every decision is scored on one OCR pass. */
interface ReadPhoto {
  name: string;
  bibs: Set<string>;
  boxes: TextBox[];
  people: PersonBox[] | null;
  megapixels: number;
  cpu: number;
}

interface Counts {
  tp: number;
  fp: number;
  fn: number;
  /** Reads completed from a fragment by the start list. */
  completed: number;
  wrong: string[];
  missed: string[];
}

/** The races under ../shared/fixtures: each folder with a ground-truth.csv of `file;bib;bib;...`. */
const RACE_FOLDERS: Record<string, string> = {
  bibs: 'road 10 km (dev fixtures: 2048 px, red-framed 2-4 digit bibs)',
  'bibs-640': 'the dev race re-rendered 640 px wide (generated: a small camera or a web export of the same photos)',
  rbnr: 'RBNR set 1 (480x720 to 1024x768, white bibs without a frame, 2-4 digits; runners with a visible face labelled)',
};

/**
 * A third race made of the dev race: its photos re-rendered 640 px wide (JPEG 90), as a small camera
 * or a web export gives them; bibs 8-25 px high instead of 25-80.
 */
const SMALL_DEV_RACE = { name: 'bibs-640', from: 'bibs', width: 640 };

export async function loadRaces(fixtures: string): Promise<Race[]> {
  const races = readRaces(fixtures);
  const dev = races.find((r) => r.name === SMALL_DEV_RACE.from);
  if (!dev) return races;
  const smaller = (file: Buffer) =>
    sharp(file).rotate().resize({ width: SMALL_DEV_RACE.width }).jpeg({ quality: 90 }).toBuffer();
  const photos = await Promise.all(dev.photos.map(async (p) => ({ ...p, file: await smaller(p.file) })));
  return [...races, { name: SMALL_DEV_RACE.name, family: dev.family, photos }];
}

function readRaces(fixtures: string): Race[] {
  const races: Race[] = [];
  for (const folder of Object.keys(RACE_FOLDERS)) {
    const dir = path.join(fixtures, folder);
    if (!existsSync(path.join(dir, 'ground-truth.csv'))) continue;
    const photos: Race['photos'] = [];
    for (const line of readFileSync(path.join(dir, 'ground-truth.csv'), 'utf8').split(/\r?\n/)) {
      const [name, ...bibs] = line.trim().split(';');
      if (name) photos.push({ name, file: readFileSync(path.join(dir, name)), bibs: new Set(bibs.filter(Boolean)) });
    }
    races.push({ name: folder, family: folder, photos });
  }
  return races;
}

async function readRace(reader: BibReader, race: Race): Promise<ReadPhoto[]> {
  const read: ReadPhoto[] = [];
  for (const photo of race.photos) {
    const { width = 0, height = 0 } = await sharp(photo.file).metadata();
    const cpu0 = process.cpuUsage();
    const { boxes, people } = await reader.candidates(photo.file);
    const cpu = process.cpuUsage(cpu0);
    read.push({
      name: photo.name,
      bibs: photo.bibs,
      boxes,
      people,
      megapixels: (width * height) / 1e6,
      cpu: (cpu.user + cpu.system) / 1e6,
    });
  }
  return read;
}

/**
 * Photo-level counts, as BIB search finds a bib: a labelled bib read on its photo, an unlabelled read is
 * wrong. Each read is judged as the photo job judges it (`judgeBibRead`): without a start list a whole
 * read counts and a partial one does not; with one, a read counts when listed or completed to the one
 * listed number holding it.
 */
function score(photos: ReadPhoto[], rules: BibRules, startList: StartListView | null = null): Counts {
  const counts: Counts = { tp: 0, fp: 0, fn: 0, completed: 0, wrong: [], missed: [] };
  for (const photo of photos) {
    const found = new Set<string>();
    for (const read of readBibs(photo.boxes, rules, photo.people ?? undefined)) {
      const judged = judgeBibRead(read, startList);
      if (judged.status === 'rejected' || found.has(judged.bib)) continue;
      found.add(judged.bib);
      if (judged.status === 'completed') counts.completed++;
    }
    for (const bib of found) {
      if (photo.bibs.has(bib)) counts.tp++;
      else {
        counts.fp++;
        counts.wrong.push(`${bib} (${photo.name})`);
      }
    }
    for (const bib of photo.bibs) {
      if (found.has(bib)) continue;
      counts.fn++;
      counts.missed.push(`${bib} (${photo.name})`);
    }
  }
  return counts;
}

/**
 * A realistic start list for a race: every number from its smallest labelled bib to its largest (the
 * race issued them all, photographed or not), so a fragment completes only when one issued number holds it.
 */
function issuedRange(race: Race): { view: StartListView; low: number; high: number } {
  const labelled = race.photos.flatMap((p) => [...p.bibs]).map(Number);
  const [low, high] = [Math.min(...labelled), Math.max(...labelled)];
  return { view: startListView(Array.from({ length: high - low + 1 }, (_, i) => String(low + i))), low, high };
}

const precision = (c: Counts) => (c.tp + c.fp ? c.tp / (c.tp + c.fp) : 1);
const recall = (c: Counts) => (c.tp + c.fn ? c.tp / (c.tp + c.fn) : 1);
const f1 = (c: Counts) => (precision(c) + recall(c) ? (2 * precision(c) * recall(c)) / (precision(c) + recall(c)) : 0);
const prf = (c: Counts) => `${precision(c).toFixed(3)} / ${recall(c).toFixed(3)} / ${f1(c).toFixed(3)}`;
const list = (items: string[], max = 12) =>
  items.length
    ? items.slice(0, max).join(', ') + (items.length > max ? ` and ${items.length - max} more` : '')
    : 'none';

/** The rule values a race may choose from: bib-score threshold, read confidence, occluder reach (0: off). */
const THRESHOLDS = Array.from({ length: 19 }, (_, i) => Math.round(i * 5) / 100);
const CONFIDENCES = [0.8, 0.85, 0.9, 0.95];
const CUT_REACHES = [0, 0.1, 0.2, 0.3, 0.5];

type ChosenRules = Pick<BibRules, 'minBibScore' | 'minConfidence' | 'cutReach'>;
const describe = (r: ChosenRules) =>
  `minBibScore ${r.minBibScore}, minConfidence ${r.minConfidence}, cutReach ${r.cutReach}`;

/**
 * The rules chosen on the training races: the highest F1 of their bibs pooled, ties to the lower value
 * of each (the occluder rule off first, then the lower confidence and threshold: recall matters most,
 * a participant whose bib is missed gets nothing).
 */
type Training = Array<{ photos: ReadPhoto[]; startList: StartListView | null }>;

function chooseRules(training: Training, base: BibRules): ChosenRules {
  let best: { rules: ChosenRules; f1: number } = { rules: base, f1: -1 };
  for (const cutReach of CUT_REACHES) {
    for (const minConfidence of CONFIDENCES) {
      for (const minBibScore of THRESHOLDS) {
        const rules = { minBibScore, minConfidence, cutReach };
        const pooled = training
          .map(({ photos, startList }) => score(photos, { ...base, ...rules }, startList))
          .reduce(add);
        if (f1(pooled) > best.f1 + 1e-9) best = { rules, f1: f1(pooled) };
      }
    }
  }
  return best.rules;
}

const add = (a: Counts, b: Counts): Counts => ({
  tp: a.tp + b.tp,
  fp: a.fp + b.fp,
  fn: a.fn + b.fn,
  completed: a.completed + b.completed,
  wrong: [...a.wrong, ...b.wrong],
  missed: [...a.missed, ...b.missed],
});

/**
 * The reader as on main before this round (one look at each person, lines read as the detector cuts them), with
 * each new reader rule alone, and as now. The variant is chosen leave-one-race-out too (`chooseReader`).
 */
const VARIANTS: Array<{ label: string; options: Partial<BibReaderOptions> }> = [
  {
    label: 'before (main of 2026-11-28 02:00: one look, lines as cut)',
    options: { secondLook: false, linePadding: 0 },
  },
  { label: 'look (second look, lines as cut)', options: { secondLook: true, linePadding: 0 } },
  {
    label: 'pad50 (one look, lines widened by 0.5 heights, every widened read kept)',
    options: { secondLook: false, linePadding: 0.5, widenedGlyphCheck: false },
  },
  {
    label: 'pad25 (one look, lines widened by 0.25 heights, every widened read kept)',
    options: { secondLook: false, linePadding: 0.25, widenedGlyphCheck: false },
  },
  {
    label: 'now (as shipped: lines widened by 0.25 heights, a gained glyph kept only when shaped as a digit)',
    options: {},
  },
];

/**
 * Every variant in one run (CPU figures comparable); `BENCH_BIB_NOW_ONLY=1` for the current reader alone,
 * `BENCH_BIB_VARIANTS=before,now` for those variants (first word of the label).
 */
export async function bibRacesBench(rows: BenchRow[], reader: BibReader, fixtures: string): Promise<void> {
  const picked = process.env.BENCH_BIB_VARIANTS?.split(',');
  const variants = process.env.BENCH_BIB_NOW_ONLY
    ? VARIANTS.slice(-1)
    : VARIANTS.filter((v) => !picked || picked.includes(v.label.split(' ')[0]));
  const reads: Array<{ label: string; read: Map<string, ReadPhoto[]>; rules: BibRules }> = [];
  for (const { label, options } of variants) {
    const variant = reader.withOptions(options);
    const rules = options.rules ?? DEFAULT_BIB_RULES;
    reads.push({ label, rules, read: await bibRaces(rows, variant, fixtures, label, rules) });
  }
  if (reads.length > 1) chooseReader(rows, await loadRaces(fixtures), reads);
}

/**
 * The reader variant chosen leave-one-race-out, as the rules are: for each race, the variant (with its rules
 * chosen on the other races) whose pooled F1 on the other races is highest, ties to the earlier variant (the
 * cheaper one), reported on the race left out.
 */
function chooseReader(
  rows: BenchRow[],
  races: Race[],
  reads: Array<{ label: string; read: Map<string, ReadPhoto[]>; rules: BibRules }>,
): void {
  for (const race of races) {
    const others = races.filter((r) => r.family !== race.family);
    if (!others.length) continue;
    let best: { label: string; f1: number; rules: BibRules; photos: ReadPhoto[] } | null = null;
    for (const { label, read, rules } of reads) {
      const training = others.map((r) => ({ photos: read.get(r.name) ?? [], startList: null }));
      const chosen = { ...rules, ...chooseRules(training, rules) };
      const pooled = training.map(({ photos }) => score(photos, chosen)).reduce(add);
      if (!best || f1(pooled) > best.f1 + 1e-9)
        best = { label, f1: f1(pooled), rules: chosen, photos: read.get(race.name) ?? [] };
    }
    if (!best) continue;
    const heldOut = score(best.photos, best.rules);
    rows.push({
      figure: `BIB P / R / F1, reader and rules chosen leave-one-race-out, race ${race.name} left out`,
      value: prf(heldOut),
      target: 'recall >= 0.90, precision >= 0.95',
      how: [
        `reader "${best.label}" with ${describe(best.rules)} chosen on ${others.map((r) => r.name).join(', ')}`,
        `(pooled F1 there ${best.f1.toFixed(3)})`,
        `wrong: ${list(heldOut.wrong)}`,
        `missed: ${list(heldOut.missed, 30)}`,
      ].join('; '),
    });
  }
}

/**
 * `npm run bench -- bib-races`: the reader on every race of the fixtures, per race, with the rules
 * as shipped and leave-one-race-out (the bib-score threshold chosen on the other races, reported on
 * the one left out), and the reader's CPU per photo by photo size.
 */
export async function bibRaces(
  rows: BenchRow[],
  reader: BibReader,
  fixtures: string,
  label = 'as shipped',
  rules: BibRules = DEFAULT_BIB_RULES,
): Promise<Map<string, ReadPhoto[]>> {
  const races = await loadRaces(fixtures);
  if (!races.length) {
    rows.push({
      figure: 'BIB per race',
      value: 'skipped',
      target: '',
      how: '../shared/fixtures/{bibs,rbnr} are absent',
    });
    return new Map();
  }
  const read = new Map<string, ReadPhoto[]>();
  const replay = process.env.BENCH_BIB_REPLAY ? `${process.env.BENCH_BIB_REPLAY}.${label.split(' ')[0]}.json` : null;
  if (replay) {
    // BENCH_BIB_REPLAY=file: the candidates of an earlier BENCH_BIB_DUMP (and its CPU), to weigh rules without OCR.
    const dumped = JSON.parse(readFileSync(replay, 'utf8')) as Record<string, Array<ReadPhoto & { bibs: string[] }>>;
    for (const [name, photos] of Object.entries(dumped)) {
      read.set(
        name,
        photos.map((p) => ({ ...p, bibs: new Set(p.bibs) })),
      );
    }
  } else {
    await reader.candidates(races[0].photos[0].file); // warm
    for (const race of races) read.set(race.name, await readRace(reader, race));
  }
  // BENCH_BIB_DUMP=file.json: what the reader found on each photo, to weigh rule changes without OCR.
  if (process.env.BENCH_BIB_DUMP)
    writeFileSync(
      `${process.env.BENCH_BIB_DUMP}.${label.split(' ')[0]}.json`,
      JSON.stringify(
        Object.fromEntries([...read].map(([name, photos]) => [name, photos.map((p) => ({ ...p, bibs: [...p.bibs] }))])),
      ),
    );
  for (const race of races) {
    const photos = read.get(race.name);
    if (!photos) continue;
    const shipped = score(photos, rules);
    const partial = photos.flatMap((p) =>
      readBibs(p.boxes, rules, p.people ?? undefined)
        .filter((r) => r.partial)
        .map((r) => `${r.bib} (${p.name})`),
    );
    const bibs = shipped.tp + shipped.fn;
    const cpu = photos.reduce((s, p) => s + p.cpu, 0) / photos.length;
    const mp = photos.reduce((s, p) => s + p.megapixels, 0) / photos.length;
    rows.push({
      figure: `BIB P / R / F1, ${label}, race ${race.name}`,
      value: prf(shipped),
      target: 'recall >= 0.90, precision >= 0.95',
      how: [
        `${RACE_FOLDERS[race.name]}: ${photos.length} photos, ${bibs} labelled bibs, photo level`,
        describe(rules),
        `reader CPU ${cpu.toFixed(2)} s/photo (${mp.toFixed(2)} MP on average)`,
        `wrong: ${list(shipped.wrong)}`,
        `missed: ${list(shipped.missed, 20)}`,
        `partial reads (not stored): ${list(partial)}`,
      ].join('; '),
    });
    const others = races.filter((r) => r.family !== race.family && read.has(r.name));
    if (!others.length) continue;
    const trainedOn = others.map((r) => r.name).join(', ');
    const chosen = chooseRules(
      others.map((r) => ({ photos: read.get(r.name)!, startList: null })),
      rules,
    );
    const heldOut = score(photos, { ...rules, ...chosen });
    rows.push({
      figure: `BIB P / R / F1, ${label}, race ${race.name} left out`,
      value: prf(heldOut),
      target: 'recall >= 0.90, precision >= 0.95',
      how: [
        `${describe(chosen)} chosen on ${trainedOn} (highest F1 there, ties to the lower values)`,
        `scored on ${race.name}`,
        `wrong: ${list(heldOut.wrong)}`,
        `missed: ${list(heldOut.missed, 30)}`,
      ].join('; '),
    });
    // With a start list: the threshold chosen on the other races judged against their own lists.
    const issued = issuedRange(race);
    const withLists = others.map((r) => ({ photos: read.get(r.name)!, startList: issuedRange(r).view }));
    const listed = chooseRules(withLists, rules);
    const withList = score(photos, { ...rules, ...listed }, issued.view);
    rows.push({
      figure: `BIB P / R / F1 with a start list, ${label}, race ${race.name} left out`,
      value: prf(withList),
      target: 'precision >= 0.98 at recall >= 0.92',
      how: [
        `start list: every number from ${issued.low} to ${issued.high} (the labelled range)`,
        `${describe(listed)} chosen on ${trainedOn} with their lists`,
        `${withList.completed} fragments completed`,
        `wrong: ${list(withList.wrong)}`,
        `missed: ${list(withList.missed, 20)}`,
      ].join('; '),
    });
  }
  const perPhoto = (name: string) => {
    const photos = read.get(name) ?? [];
    const average = (f: (p: ReadPhoto) => number) => photos.reduce((s, p) => s + f(p), 0) / (photos.length || 1);
    return { cpu: average((p) => p.cpu), mp: average((p) => p.megapixels) };
  };
  const large = perPhoto('bibs');
  const small = [...read.keys()].filter((name) => name !== 'bibs').map((name) => ({ name, ...perPhoto(name) }));
  const sizes = [{ name: 'bibs', ...large }, ...small].map((r) => `${r.name} ${r.mp.toFixed(2)} MP`).join(', ');
  rows.push({
    figure: `BIB reader CPU per photo, ${label}`,
    value: [
      `bibs ${large.cpu.toFixed(2)} s`,
      ...small.map((r) => `${r.name} ${r.cpu.toFixed(2)} s (ratio ${(r.cpu / large.cpu).toFixed(2)})`),
    ].join('; '),
    target: 'a 0.5 MP photo at most 1/4 of a 3 MP one (ratio <= 0.25)',
    how: `in-process, one photo at a time; average size ${sizes}`,
  });
  return read;
}
