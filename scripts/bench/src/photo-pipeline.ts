import { openImage, probeImage } from '@em/core/media';
import { decodePhoto, RgbPixels } from '@em/ml-worker';
import {
  BibReader,
  BibReaderOptions,
  BibReaderPool,
  BibReading,
  FaceAnalyzer,
  FaceAnalyzerOptions,
  OCR_MAX_SIDE,
  PersonBox,
  PHOTO_FACE_OPTIONS,
} from '@em/ml-worker';
import { displayedSize, PREVIEW_SIZES, renderPreviews, renderPreviewsOf } from '@em/ml-worker';
import { availableParallelism, loadavg } from 'node:os';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildHardSet, HardPhoto } from './bib-hard-set';
import { BenchRow, ms } from './table';

const BIB_TARGET = 'F1 >= 0.95 with precision >= 0.95';

interface BibScore {
  tp: number;
  fp: number;
  fn: number;
  wrong: string[];
}

/** Photo-level counts: a bib counts when read on its photo, as BIB search finds it; `cpu` is the reader's CPU seconds over the photos. */
async function scoreBibs(reader: BibReading, photos: HardPhoto[]): Promise<BibScore & { cpu: number }> {
  const score: BibScore & { cpu: number } = { tp: 0, fp: 0, fn: 0, wrong: [], cpu: 0 };
  for (const { name, file, bibs } of photos) {
    const cpu0 = process.cpuUsage();
    const found = await reader.read(file);
    const cpu = process.cpuUsage(cpu0);
    score.cpu += (cpu.user + cpu.system) / 1e6;
    for (const bib of found.keys()) {
      if (bibs.has(bib)) score.tp++;
      else {
        score.fp++;
        score.wrong.push(`${bib} (${name})`);
      }
    }
    for (const bib of bibs) if (!found.has(bib)) score.fn++;
  }
  return score;
}

const prf = ({ tp, fp, fn }: BibScore) => {
  const p = tp + fp ? tp / (tp + fp) : 1;
  const r = tp + fn ? tp / (tp + fn) : 1;
  return `${p.toFixed(3)} / ${r.toFixed(3)} / ${(p + r ? (2 * p * r) / (p + r) : 0).toFixed(3)}`;
};

/** The fixture race photos with their ground truth (none when ../shared/fixtures is absent). */
export function racePhotos(fixtures: string): HardPhoto[] {
  const dir = path.join(fixtures, 'bibs');
  if (!existsSync(dir)) return [];
  const race: HardPhoto[] = [];
  for (const line of readFileSync(path.join(dir, 'ground-truth.csv'), 'utf8').split(/\r?\n/)) {
    const [name, ...bibs] = line.trim().split(';');
    if (name) race.push({ name, file: readFileSync(path.join(dir, name)), bibs: new Set(bibs.filter(Boolean)) });
  }
  return race;
}

/** The ways of reading compared in one run: before the torso gate, with it on the whole photo, and on person crops (the default). */
const BIB_VARIANTS: Array<{ label: string; options: Partial<BibReaderOptions> }> = [
  { label: 'no person gate (before)', options: { torsoGate: false, crops: false } },
  { label: 'torso gate, text detection on the whole photo (before)', options: { torsoGate: true, crops: false } },
  {
    label: 'torso gate, text detection on person crops scaled by person size (default)',
    options: { torsoGate: true, crops: true },
  },
];

export async function bibAccuracy(rows: BenchRow[], reader: BibReader, fixtures: string): Promise<void> {
  const race = racePhotos(fixtures);
  if (!race.length) {
    rows.push({
      figure: 'BIB precision / recall / F1',
      value: 'skipped',
      target: BIB_TARGET,
      how: '../shared/fixtures/bibs is absent',
    });
    return;
  }
  const groupDir = path.join(fixtures, 'faces', 'group');
  const groupShots = existsSync(groupDir)
    ? readdirSync(groupDir)
        .filter((f) => /\.jpe?g$/i.test(f))
        .sort()
        .map((name) => ({ name, file: readFileSync(path.join(groupDir, name)) }))
    : [];
  const { distractors, negatives, awayFromPeople } = await buildHardSet(race, groupShots);
  if (process.env.BENCH_DUMP_DIR)
    for (const p of [...distractors, ...negatives, ...awayFromPeople])
      writeFileSync(path.join(process.env.BENCH_DUMP_DIR, p.name), p.file);
  const wrong = (s: BibScore) => s.wrong.join(', ') || 'none';
  for (const { label, options } of BIB_VARIANTS) {
    const variant = reader.withOptions(options);
    await variant.read(race[0].file); // warm
    const fixtureScore = await scoreBibs(variant, race);
    const distractorScore = await scoreBibs(variant, distractors);
    const negativeScore = await scoreBibs(variant, negatives);
    const awayScore = await scoreBibs(variant, awayFromPeople);
    const harder = {
      tp: fixtureScore.tp + distractorScore.tp,
      fp: fixtureScore.fp + distractorScore.fp + negativeScore.fp + awayScore.fp,
      fn: fixtureScore.fn + distractorScore.fn,
      wrong: [],
    };
    const photos = race.length + distractors.length + negatives.length + awayFromPeople.length;
    const cpu = fixtureScore.cpu + distractorScore.cpu + negativeScore.cpu + awayScore.cpu;
    rows.push({
      figure: `BIB P / R / F1, ${label}: dev fixtures; fixtures with signs; whole harder set`,
      value: `${prf(fixtureScore)}; ${prf(distractorScore)}; ${prf(harder)}`,
      target: BIB_TARGET,
      how: `photo level; dev: ${race.length} photos, ${fixtureScore.tp + fixtureScore.fn} bibs of ground-truth.csv (wrong: ${wrong(fixtureScore)}); harder set: the fixtures, the fixtures with 3 drawn non-bib numbers each (wrong: ${wrong(distractorScore)}) and the ${negatives.length + awayFromPeople.length} negatives below; OCR CPU ${(cpu / photos).toFixed(2)} s/photo (dev fixtures ${(fixtureScore.cpu / race.length).toFixed(2)})`,
    });
    rows.push({
      figure: `BIB false hits on negatives, ${label}`,
      value: `away from people: ${awayScore.fp} on ${awayFromPeople.length} photos; anywhere: ${negativeScore.fp} on ${negatives.length} photos`,
      target: '0 away from people',
      how: `no bib in these photos (bench/bib-hard-set.ts). Away from people: blurred race photos with 4 numbers above the heads or at leg height, streets without anybody with 5 (wrong: ${wrong(awayScore)}). Anywhere: blurred race photos and face group shots with 4 numbers each, some on torsos (a printed T-shirt: a known limit of a person gate) (wrong: ${wrong(negativeScore)})`,
    });
  }
}

export async function facesOnGroups(rows: BenchRow[], faces: FaceAnalyzer, fixtures: string): Promise<void> {
  const dir = path.join(fixtures, 'faces', 'group');
  if (!existsSync(dir)) {
    rows.push({
      figure: 'faces found on group shots',
      value: 'skipped',
      target: '',
      how: '../shared/fixtures/faces/group is absent',
    });
    return;
  }
  let total = 0;
  const names = readdirSync(dir)
    .filter((f) => /\.jpe?g$/i.test(f))
    .sort();
  for (const name of names) {
    const { plainLarge } = await renderPreviews(readFileSync(path.join(dir, name)));
    total += (await faces.detectAll(plainLarge.buffer)).length;
  }
  rows.push({
    figure: 'faces found on group shots',
    value: `${total}`,
    target: '23 (hand count)',
    how: `${names.length} shots, through the worker's path (large preview, tiny detector 512, >= 48 px)`,
  });
}

/** The steps of the photo job, each timed by the bench: previews (with the decode), BIB reading, faces. */
interface PhotoSteps {
  previews(original: Buffer): Promise<unknown>;
  bibs(reader: BibReading, original: Buffer, decoded: unknown): Promise<{ people: PersonBox[] | null }>;
  faces(faces: FaceAnalyzer, decoded: unknown, options: FaceAnalyzerOptions, people: PersonBox[]): Promise<unknown>;
}

/** As PhotoProcessor: one decode of the original (decodePhoto) shared by the previews and the BIB step; faces on the large preview's JPEG. */
export const WORKER_STEPS: PhotoSteps = {
  previews: async (original) => {
    await probeImage(original, { decode: false });
    const pixels = await decodePhoto(original, OCR_MAX_SIDE);
    const [previews] = await Promise.all([renderPreviewsOf(pixels), displayedSize(original)]);
    return { pixels, plainLarge: previews.plainLarge.buffer };
  },
  bibs: (reader, _original, decoded) => reader.readPixels((decoded as { pixels: RgbPixels }).pixels),
  faces: (faces, decoded, options, people) =>
    faces.detectAll((decoded as { plainLarge: Buffer }).plainLarge, options, people),
};

// eslint-disable-next-line @typescript-eslint/no-require-imports
const tf = require('@tensorflow/tfjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('@tensorflow/tfjs-backend-wasm');
/** tfjs-wasm's own Concat, before FaceAnalyzer replaces it (useFastConcat). */
const WASM_CONCAT = tf.getKernel('Concat', 'wasm');

/** `work` with tfjs-wasm's own Concat kernel in this thread (as before the fast Concat), then the one in use before. */
export async function withWasmConcat<T>(work: () => Promise<T>): Promise<T> {
  const current = tf.getKernel('Concat', 'wasm');
  const use = (kernel: unknown) => {
    tf.unregisterKernel('Concat', 'wasm');
    tf.registerKernel(kernel);
  };
  use(WASM_CONCAT);
  try {
    return await work();
  } finally {
    use(current);
  }
}

/** The photo job before one decode per photo: each preview from the original (mozjpeg), BIBs read on the original (a decode each), faces on the large preview's JPEG. */
export const STEPS_BEFORE: PhotoSteps = {
  previews: async (original) => {
    await probeImage(original);
    const render = (side: number, quality: number) =>
      openImage(original, { failOn: 'error' })
        .rotate()
        .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true })
        .jpeg({ quality, mozjpeg: true })
        .toBuffer();
    const [large] = await Promise.all([
      render(PREVIEW_SIZES.large, 82),
      render(PREVIEW_SIZES.thumbnail, 76),
      displayedSize(original),
    ]);
    return large;
  },
  bibs: (reader, original) => reader.readPhoto(original),
  faces: (faces, decoded, options, people) => faces.detectAll(decoded as Buffer, options, people),
};

/**
 * The process stage as the worker runs it (previews, BIB OCR, faces; faces serialised in the
 * process as in the worker), photos/min with one photo at a time and OCR in-process, then with
 * N photos at once and N OCR threads (PHOTO_CONCURRENCY, default = cores).
 */
export async function throughput(
  rows: BenchRow[],
  race: Array<{ name: string; file: Buffer }>,
  reader: BibReader,
  faces: FaceAnalyzer,
  faceOptions: FaceAnalyzerOptions = PHOTO_FACE_OPTIONS,
  label = '',
  job: PhotoSteps = WORKER_STEPS,
): Promise<void> {
  if (!race.length) return;
  const photos = [...race, ...race]; // each fixture twice: a longer run, steadier figure
  const steps = { previews: 0, bibs: 0, faces: 0 };
  /** CPU ms of each step (the whole process: with 1 photo at a time and OCR in-process, each step's own). */
  const stepCpu = { previews: 0, bibs: 0, faces: 0 };
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };
  const run = async (bibs: BibReading, concurrency: number) => {
    const queue = [...photos];
    const t0 = process.hrtime.bigint();
    const cpu0 = process.cpuUsage();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let photo = queue.shift(); photo; photo = queue.shift()) {
          let t = process.hrtime.bigint();
          let c = process.cpuUsage();
          const decoded = await job.previews(photo.file);
          steps.previews += ms(t);
          stepCpu.previews += cpuMs(c);
          t = process.hrtime.bigint();
          c = process.cpuUsage();
          const { people } = await job.bibs(bibs, photo.file, decoded);
          steps.bibs += ms(t);
          stepCpu.bibs += cpuMs(c);
          t = process.hrtime.bigint();
          c = process.cpuUsage();
          await job.faces(faces, decoded, faceOptions, people ?? []);
          steps.faces += ms(t);
          stepCpu.faces += cpuMs(c);
        }
      }),
    );
    const cpu = process.cpuUsage(cpu0); // the whole process, OCR threads included
    return { perMinute: (photos.length / ms(t0)) * 60_000, cpuPerPhoto: (cpu.user + cpu.system) / 1e6 / photos.length };
  };
  await reader.load();
  const one = await run(reader, 1);
  const total = steps.previews + steps.bibs + steps.faces;
  const share = (v: number) => `${((v / total) * 100).toFixed(0)}% (${(v / photos.length).toFixed(0)} ms/photo)`;
  const stepsOfOne = `previews ${share(steps.previews)}, bibs ${share(steps.bibs)}, faces ${share(steps.faces)}`;
  const perPhoto = (v: number) => `${(v / photos.length).toFixed(0)} ms`;
  const cpuOfOne = `previews ${perPhoto(stepCpu.previews)}, bibs ${perPhoto(stepCpu.bibs)}, faces ${perPhoto(stepCpu.faces)}`;
  const n = availableParallelism();
  const rssBefore = process.memoryUsage().rss;
  const pool = new BibReaderPool(n);
  await pool.load();
  await pool.read(photos[0].file); // warm the threads, as a running worker is
  const many = await run(pool, n);
  const rssWithThreads = process.memoryUsage().rss;
  await pool.close();
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  const idle = (cpuPerPhoto: number) => ((n * 60) / cpuPerPhoto).toFixed(0);
  rows.push({
    figure: `process stage, photos/min (1 photo at a time; N at once)${label}`,
    value: `wall: 1: ${one.perMinute.toFixed(1)}; ${n}: ${many.perMinute.toFixed(1)} photos/min. CPU per photo: 1: ${one.cpuPerPhoto.toFixed(2)} s, ${n}: ${many.cpuPerPhoto.toFixed(2)} s = ${idle(many.cpuPerPhoto)} photos/min on ${n} idle cores`,
    target: '>= 60 photos/min on 2 cores (120 as the aim)',
    how: `${photos.length} photos of 2048 px (the fixtures twice), probe, decode and previews + BIB OCR with the torso gate + faces, warm models, one process; N = ${n} = PHOTO_CONCURRENCY default (cores): N photos in flight, N OCR threads, faces serialised on the main thread; wall time depends on the shared machine (load ${loadavg()[0].toFixed(1)} at the end): the CPU time per photo (process.cpuUsage over the run, OCR threads included) gives what ${n} idle cores would do`,
  });
  rows.push({
    figure: `time per step, 1 photo at a time${label}`,
    value: stepsOfOne,
    target: '',
    how: 'wall time of each step, summed over the photos',
  });
  rows.push({
    figure: `CPU per photo of each step, 1 photo at a time${label}`,
    value: cpuOfOne,
    target: '',
    how: 'process CPU time (user + system) during each step, OCR in-process: what a loaded machine changes least',
  });
  rows.push({
    figure: 'resident memory, OCR threads',
    value: `${mb(rssWithThreads)} with ${n} OCR threads (${mb(rssBefore)} before them)`,
    target: '',
    how: 'RSS of the bench process (faces and in-process OCR models loaded); each thread holds its own OCR models and person detector',
  });
}
