import { BibReadStatus, judgeBibRead, startListView, StartListView } from '@em/core';
import {
  BibReader,
  BibReaderOptions,
  BibRules,
  DEFAULT_BIB_RULES,
  DEFAULT_TEXT_CROP_OPTIONS,
  DEFAULT_TORSO_RULES,
  OCR_MAX_SIDE,
  PersonBox,
  readBibs,
  readBibsWithUnsure,
  TextBox,
} from '@em/ml-worker';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp, { Sharp } from 'sharp';
import { bibAnatomy } from './bib-anatomy';
import { BibFont, installedBibFonts, seededRandom, SHEET_PLACES, withLongerBibs } from './bib-long-numbers';
import { storedFragments, visibleUnlabelled } from './bib-unlabelled';
import { BenchRow } from './table';

/** A race of the fixtures: photos with the bibs labelled on each. */
interface Race {
  name: string;
  /** The race a generated one is made of: never trained on when the other is left out. */
  family: string;
  /**
   * Whether rules are chosen on it when another family is left out. The longer-number races are not: every photo,
   * label and wrong read but their sheets is a copy of their source's, which would weigh the source two more times.
   */
  trains?: boolean;
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
  /** Each labelled bib of the photos and whether it was found. */
  labelled: Array<{ photo: string; bib: string; found: boolean }>;
}

/** The races under ../shared/fixtures: each folder with a ground-truth.csv of `file;bib;bib;...`. */
const RACE_FOLDERS: Record<string, string> = {
  bibs: 'road 10 km (dev fixtures: 2048 px, red-framed 2-4 digit bibs)',
  rbnr: 'RBNR set 1 (480x720 to 1024x768, white bibs without a frame, 2-4 digits; runners with a visible face labelled)',
};

/**
 * Races made of the ones we have, for what the hidden races are and ours are not: smaller photos, other
 * sheet colours, heavier compression. Each keeps its source's labels and family (never trained on when
 * its source is left out). `width` resizes (the bibs' heights scale with it); `tint` multiplies each
 * channel (a white sheet turns yellow, dark ink stays dark); `quality` is the JPEG quality.
 */
interface GeneratedRace {
  name: string;
  from: string;
  how: string;
  width?: number;
  tint?: [number, number, number];
  /** Every channel times this (0.5: a photo a stop under-exposed, its shadows crushed by the JPEG). */
  exposure?: number;
  /** Gaussian blur, sigma in pixels: a lens out of focus or a runner's motion. */
  blur?: number;
  /** Degrees the camera is rolled (the corners filled grey). */
  roll?: number;
  /** Horizontal motion blur, pixels long: a runner crossing the frame at a shutter too slow for their speed. */
  motion?: number;
  /** Sensor noise, standard deviation in 0-255 levels per channel: a high ISO in dim light (seeded per photo). */
  noise?: number;
  quality: number;
  /** Close-ups: one photo per rectangle of a source photo (oriented pixels), labelled with the bib it holds. */
  closeUps?: CloseUp[];
  /** Each bib the shipped reader read right covered by a rendered 5- or 6-digit sheet (bib-long-numbers.ts). */
  longer?: boolean;
  /** false: measured, never chosen on (Race.trains). */
  trains?: boolean;
}

interface CloseUp {
  photo: string;
  bib: string;
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * The dev race's bibs with digits of 30 px and more (read once to place them), each cut out 3:2 so that its
 * digits are a tenth of the frame's height (the sheet about a tenth of the frame): a runner filling a small
 * photo, the hidden races' "large, sharp bib" (the person detector's box is then cut by the frame).
 */
const DEV_CLOSE_UPS: CloseUp[] = [
  { photo: 'prom2.jpg', bib: '398', left: 1116, top: 333, width: 675, height: 450 },
  { photo: 'prom3.jpg', bib: '7690', left: 1478, top: 315, width: 570, height: 380 },
  { photo: 'prom3.jpg', bib: '3268', left: 933, top: 499, width: 465, height: 310 },
  { photo: 'prom4.jpg', bib: '2695', left: 1330, top: 317, width: 675, height: 450 },
  { photo: 'prom4.jpg', bib: '5823', left: 689, top: 367, width: 585, height: 390 },
  { photo: '0017-IMG_0035.JPG', bib: '46', left: 392, top: 388, width: 510, height: 340 },
  { photo: '0236-IMG_0273.JPG', bib: '6291', left: 429, top: 651, width: 765, height: 510 },
  { photo: '0236-IMG_0273.JPG', bib: '7483', left: 1, top: 435, width: 465, height: 310 },
];

const GENERATED_RACES: GeneratedRace[] = [
  {
    name: 'bibs-640',
    from: 'bibs',
    how: 'the dev race re-rendered 640 px wide (generated: a small camera or a web export of the same photos)',
    width: 640,
    quality: 90,
  },
  {
    name: 'bibs-1024',
    from: 'bibs',
    how: "the dev race re-rendered 1024 px wide (generated: the hidden races' largest photos)",
    width: 1024,
    quality: 90,
  },
  {
    name: 'bibs-close',
    from: 'bibs',
    how: 'close-ups of the dev race 720 px wide, digits a tenth of the frame (generated: a runner filling the photo)',
    width: 720,
    quality: 90,
    closeUps: DEV_CLOSE_UPS,
  },
  {
    name: 'bibs-close-yellow',
    from: 'bibs',
    how: "the close-ups with yellow sheets (generated: blue x0.3, green x0.9; the hidden races' large yellow bib)",
    width: 720,
    tint: [1, 0.9, 0.3],
    quality: 90,
    closeUps: DEV_CLOSE_UPS,
  },
  {
    name: 'rbnr-yellow',
    from: 'rbnr',
    how: 'RBNR set 1 warm-tinted so that its white sheets are yellow (generated: blue x0.3, green x0.9)',
    tint: [1, 0.9, 0.3],
    quality: 90,
  },
  // Photographic conditions no rule was ever chosen on: reported, never tuned on.
  {
    name: 'rbnr-dark',
    from: 'rbnr',
    how: 'RBNR set 1 a stop under-exposed (generated: every channel x0.5)',
    exposure: 0.5,
    trains: false,
    quality: 90,
  },
  {
    name: 'rbnr-soft',
    from: 'rbnr',
    how: 'RBNR set 1 out of focus (generated: Gaussian blur, sigma 1 px)',
    blur: 1,
    trains: false,
    quality: 90,
  },
  {
    name: 'rbnr-motion',
    from: 'rbnr',
    how: 'RBNR set 1 with horizontal motion blur (generated: a 3 px streak, a shutter too slow for a runner)',
    motion: 3,
    trains: false,
    quality: 90,
  },
  {
    name: 'rbnr-noisy',
    from: 'rbnr',
    how: 'RBNR set 1 with sensor noise (generated: Gaussian, sigma 12 levels a channel, a high ISO at dusk)',
    noise: 12,
    trains: false,
    quality: 90,
  },
  {
    name: 'rbnr-rolled',
    from: 'rbnr',
    how: 'RBNR set 1 with the camera rolled 7 degrees (generated)',
    roll: 7,
    trains: false,
    quality: 90,
  },
  {
    name: 'bibs-long',
    from: 'bibs',
    how: 'the dev race with each bib read right covered by a rendered 5-6 digit sheet of its size (generated: longer numbers)',
    quality: 88,
    longer: true,
  },
  {
    name: 'bibs-long-720',
    from: 'bibs',
    how: 'bibs-long re-rendered 720 px wide (generated: longer numbers on a small photo)',
    width: 720,
    quality: 88,
    longer: true,
  },
  {
    name: 'bibs-close-long',
    from: 'bibs',
    how: "bibs-close's close-ups of bibs-long's sheets, 720 px wide (generated: the hidden races' large, sharp 5-digit bib)",
    width: 720,
    quality: 88,
    closeUps: DEV_CLOSE_UPS,
    longer: true,
  },
  {
    name: 'rbnr-long',
    from: 'rbnr',
    how: 'RBNR set 1 with each bib read right covered by a rendered 5-6 digit sheet of its size (generated: longer numbers)',
    quality: 88,
    longer: true,
  },
  {
    name: 'rbnr-long-720',
    from: 'rbnr',
    how: 'rbnr-long at most 720 px wide (generated: longer numbers on a small photo)',
    width: 720,
    quality: 88,
    longer: true,
  },
  {
    name: 'rbnr-q40',
    from: 'rbnr',
    how: 'RBNR set 1 re-encoded as JPEG quality 40 (generated: a heavily compressed web export)',
    quality: 40,
  },
];

const raceDescription = (name: string) =>
  RACE_FOLDERS[name] ?? GENERATED_RACES.find((g) => g.name === name)?.how ?? name;

async function generate(file: Buffer, g: GeneratedRace, closeUp?: CloseUp): Promise<Buffer> {
  let image = sharp(file).rotate();
  // Oriented first: the rectangles are in the pixels as the photo is seen.
  if (closeUp) {
    const { left, top, width, height } = closeUp;
    image = sharp(await image.toBuffer()).extract({ left, top, width, height });
  }
  if (g.width) image = image.resize({ width: g.width });
  if (g.exposure) image = image.linear(g.exposure, 0);
  if (g.blur) image = image.blur(g.blur);
  // sharp takes kernels of 3 rows and more: the streak is the middle one.
  if (g.motion) {
    const kernel = [0, 1, 0].flatMap((row) => new Array<number>(g.motion!).fill(row));
    image = image.convolve({ width: g.motion, height: 3, kernel, scale: g.motion });
  }
  if (g.noise) image = await withSensorNoise(image, g.noise, `${g.name}:${file.length}`);
  // A pipeline takes one rotation: the photo is turned upright first, then rolled.
  if (g.roll) image = sharp(await image.png().toBuffer()).rotate(g.roll, { background: { r: 128, g: 128, b: 128 } });
  if (g.tint) {
    const [r, gr, b] = g.tint;
    image = image.recomb([
      [r, 0, 0],
      [0, gr, 0],
      [0, 0, b],
    ]);
  }
  return image.jpeg({ quality: g.quality }).toBuffer();
}

/** Gaussian noise of `sigma` levels on each channel of each pixel (Box-Muller on a seeded stream). */
async function withSensorNoise(image: Sharp, sigma: number, seed: string): Promise<Sharp> {
  const { data, info } = await image.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const random = seededRandom(seed);
  for (let i = 0; i < data.length; i++) {
    const gaussian = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    data[i] = Math.max(0, Math.min(255, Math.round(data[i] + sigma * gaussian)));
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
}

/** The races of the fixtures and the generated ones; `BENCH_BIB_RACES=bibs,rbnr-q40` for those alone. */
export async function loadRaces(fixtures: string): Promise<Race[]> {
  const picked = process.env.BENCH_BIB_RACES?.split(',');
  const races = readRaces(fixtures);
  const generated: Race[] = [];
  for (const g of GENERATED_RACES) {
    const source = races.find((r) => r.name === g.from);
    if (!source || (picked && !picked.includes(g.name))) continue;
    if (g.longer) {
      const longer = await longerRace(source, g);
      if (longer) generated.push(longer);
      continue;
    }
    const photos = g.closeUps
      ? await Promise.all(
          g.closeUps.map(async (c) => {
            const file = source.photos.find((p) => p.name === c.photo)!.file;
            return { name: `${c.photo}#${c.bib}`, file: await generate(file, g, c), bibs: new Set([c.bib]) };
          }),
        )
      : await Promise.all(source.photos.map(async (p) => ({ ...p, file: await generate(p.file, g) })));
    generated.push({ name: g.name, family: source.family, photos, trains: g.trains });
  }
  return [...races.filter((r) => !picked || picked.includes(r.name)), ...generated];
}

/** A race of longer numbers made of `source` (bib-long-numbers.ts); null, with a message, without a bold sans font. */
async function longerRace(source: Race, g: GeneratedRace): Promise<Race | null> {
  const fonts = installedBibFonts();
  if (!fonts.length) {
    console.warn(`${g.name} skipped: none of DejaVu Sans Bold, Liberation Sans Bold (fc-list) to render its sheets`);
    return null;
  }
  const places = SHEET_PLACES[source.name] ?? [];
  if (g.closeUps)
    return {
      name: g.name,
      family: source.family,
      photos: await longerCloseUps(source, g, g.closeUps, fonts),
      trains: false,
    };
  // Only the photos with a sheet: the race measures the longer numbers (and keeps those photos' other labels).
  const photos = await Promise.all(
    source.photos
      .filter((p) => places.some((place) => place.photo === p.name))
      .map(async (p) => {
        const mine = places.filter((place) => place.photo === p.name);
        const { file, bibs } = await withLongerBibs(p.name, p.file, p.bibs, mine, fonts, g.quality, g.width);
        return { name: p.name, file, bibs };
      }),
  );
  return { name: g.name, family: source.family, photos, trains: false };
}

/**
 * Close-ups of the longer sheets: each close-up's rectangle moved sideways (as little as needed) to hold its new,
 * wider number with half a digit height to spare, 720 px wide, labelled with that number.
 */
async function longerCloseUps(
  source: Race,
  g: GeneratedRace,
  closeUps: CloseUp[],
  fonts: BibFont[],
): Promise<Race['photos']> {
  const photos: Race['photos'] = [];
  for (const c of closeUps) {
    const photo = source.photos.find((p) => p.name === c.photo)!;
    const places = (SHEET_PLACES[source.name] ?? []).filter((p) => p.photo === c.photo);
    const long = await withLongerBibs(photo.name, photo.file, photo.bibs, places, fonts, 95);
    const placed = long.placed.find((p) => p.bib === c.bib);
    if (!placed) continue;
    const { width: photoWidth = 0 } = await sharp(long.file).metadata();
    const spare = placed.box.height / 2;
    const left = Math.round(
      Math.min(
        Math.max(c.left, placed.box.x + placed.box.width + spare - c.width),
        placed.box.x - spare,
        photoWidth - c.width,
      ),
    );
    if (left < 0) continue;
    const file = await sharp(long.file)
      .extract({ left, top: c.top, width: c.width, height: c.height })
      .resize({ width: g.width })
      .jpeg({ quality: g.quality })
      .toBuffer();
    photos.push({ name: `${c.photo}#${placed.number}`, file, bibs: new Set([placed.number]) });
  }
  return photos;
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
  const counts: Counts = { tp: 0, fp: 0, fn: 0, completed: 0, wrong: [], missed: [], labelled: [] };
  const judged = photos.map((photo) => {
    const kept = new Map<string, BibReadStatus>();
    for (const read of readBibsWithUnsure(photo.boxes, rules, photo.people ?? undefined)) {
      const { bib, status } = judgeBibRead(read, startList);
      if (status !== 'rejected' && (!kept.has(bib) || kept.get(bib) === 'unconfirmed')) kept.set(bib, status);
    }
    return kept;
  });
  // An unsure read counts once another photo holds its number: the product's rule (the photos repository's `settleUnsure`) with every
  // photo of a race near every other (no capture times; an import of a race takes less than SIGHTING_SECONDS).
  const holders = new Map<string, number>();
  for (const kept of judged) for (const bib of kept.keys()) holders.set(bib, (holders.get(bib) ?? 0) + 1);
  for (const [i, photo] of photos.entries()) {
    const found = new Set<string>();
    for (const [bib, status] of judged[i]) {
      if (status === 'unconfirmed' && (holders.get(bib) ?? 0) < 2) continue;
      found.add(bib);
      if (status === 'completed') counts.completed++;
    }
    for (const bib of found) {
      if (photo.bibs.has(bib)) counts.tp++;
      else {
        counts.fp++;
        counts.wrong.push(`${bib} (${photo.name})`);
      }
    }
    for (const bib of photo.bibs) {
      counts.labelled.push({ photo: photo.name, bib, found: found.has(bib) });
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
  const labelled = race.photos.flatMap((p) => [...p.bibs]);
  // A generated race's 5-6 digit numbers are listed one by one beside its source's range (every fragment listed);
  // close-ups of them alone beside every 5-digit number (as dense: a fragment completes only when one number holds it).
  const longer = labelled.filter((b) => b.length >= 5);
  const short = labelled.filter((b) => b.length < 5).map(Number);
  const [low, high] = short.length ? [Math.min(...short), Math.max(...short)] : [10000, 99999];
  const range = Array.from({ length: high - low + 1 }, (_, i) => String(low + i));
  return { view: startListView([...range, ...longer]), low, high };
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
// BENCH_BIB_CONFIDENCES=0.7,0.75,0.8: other confidences offered to the choice (a replay weighs them without OCR).
const CONFIDENCES = process.env.BENCH_BIB_CONFIDENCES?.split(',').map(Number) ?? [0.8, 0.85, 0.9, 0.95];
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
  labelled: [...a.labelled, ...b.labelled],
});

/**
 * The reader as on main before this round, with each new reader rule, and as now. The variant is chosen
 * leave-one-race-out too (`chooseReader`). Earlier rounds' variants (second look, lines widened by 0.5) are in
 * docs/benchmarks.md.
 */
const VARIANTS: Array<{ label: string; options: Partial<BibReaderOptions>; optIn?: boolean }> = [
  {
    label: "before (main of 2026-11-28 11:00: the detector's input as the OCR library's, slanted lines read as cut)",
    options: { detectorInput: 'library', slantedWidening: false },
  },
  {
    label: 'greydetector (the text detector sees each crop as its stretched luminance, the recogniser in colour)',
    options: { luminance: 'detector' },
    optIn: true,
  },
  {
    label: 'greyboth (the text detector and the recogniser see each crop as its stretched luminance)',
    options: { luminance: 'both' },
    optIn: true,
  },
  {
    label: 'greyfallback (in colour; a crop where no print passed the gates is detected again on its luminance)',
    options: { luminance: 'off', greyFallback: true },
    optIn: true,
  },
  {
    label: "printfixed (the print gate's least range 40 whatever the light, as before 2026-11-29)",
    options: { rules: { ...DEFAULT_BIB_RULES, printContrastOfLight: false } },
    optIn: true,
  },
  {
    label: 'digitbeside (a number with a digit-shaped glyph beside it that the read left out is partial)',
    options: { rules: { ...DEFAULT_BIB_RULES, digitBesideCut: true } },
  },
  {
    label: "paddlerec (the recogniser's input as PaddleOCR's too: -1..1, padded right to 320 columns)",
    options: { recogniserInput: 'paddle' },
    optIn: true,
  },
  {
    label: "libraryslanted (the detector's input as the OCR library's, slanted lines widened)",
    options: { detectorInput: 'library' },
    optIn: true,
  },
  {
    label: "paddlelevel (the detector's input as PaddleOCR's, slanted lines read as cut)",
    options: { slantedWidening: false },
    optIn: true,
  },
  {
    label: 'nolarger (no larger look where no number was read: largerScale 0)',
    options: { largerScale: 0 },
    optIn: true,
  },
  {
    label: 'largerwhole (the larger look on the whole crop, its margins too)',
    options: { largerAroundMiddle: false },
    optIn: true,
  },
  {
    label: 'largerall (the larger look on every crop, the people behind too: main before 2026-11-29 21:10)',
    options: { largerFrontOnly: false },
    optIn: true,
  },
  {
    label: "otherinput (a crop where no number was read is detected again with the library's detector input)",
    options: { otherDetectorInput: true },
    optIn: true,
  },
  {
    label: 'main (main of 2026-11-28 14:00: one view read per number, a tenth of a height to the frame, no head rule)',
    options: {
      everyView: false,
      rules: { ...DEFAULT_BIB_RULES, frameMargin: 0.1 },
      torso: { ...DEFAULT_TORSO_RULES, headShare: 0 },
    },
    optIn: true,
  },
  {
    label:
      "ungrouped (main before this round: people behind held at the photo's pixels, the tallest person as their box's width implies even a box holding others)",
    options: { textCrops: { ...DEFAULT_TEXT_CROP_OPTIONS, groupsByOwnHeight: false, behindTextHeight: 0 } },
    optIn: true,
  },
  // People behind brought to this implied bib height instead of held at the photo's pixels (behindTextHeight).
  ...[10, 12, 15, 20, 30].map((px) => ({
    label: `behind${px} (people behind enlarged until their implied bib is ${px} px, not held at the photo's pixels)`,
    options: { textCrops: { ...DEFAULT_TEXT_CROP_OPTIONS, behindTextHeight: px } },
    optIn: true,
  })),
  {
    label:
      'greynoprint (main before this round: a crop is detected again on its luminance only where no print passed the gates, not where no number was read)',
    options: { luminanceWhereNoNumber: false },
    optIn: true,
  },
  {
    label: "nothin (main before 2026-11-29 08:40: the widened read's glyph check at the print's midpoint only)",
    options: { thinStrokeGlyphs: false },
    optIn: true,
  },
  {
    label: 'noglyph (a widened read is kept whatever it gained: no glyph check)',
    options: { widenedGlyphCheck: false },
    optIn: true,
  },
  {
    label:
      "besidebib (main before 2026-11-29 11:00: a number beside a runner's own bib on their torso stored as a bib of its own)",
    options: { rules: { ...DEFAULT_BIB_RULES, oneBibPerRunner: false } },
    optIn: true,
  },
  {
    label:
      "shipped (the OCR models' graphs as the package ships them, not fuseOcrModel's: main before 2026-11-29 11:00)",
    options: { ocrGraph: 'shipped' },
    optIn: true,
  },
  ...[8, 10, 12].map((degrees) => ({
    label: `tilt${degrees} (where no number was read on a crop, the detector looks again at it turned ${degrees} degrees either way)`,
    options: { tiltedLook: degrees },
    optIn: true,
  })),
  {
    label:
      'tilt8front (tilt8 on the crops at least half as tall as the tallest only: the people in front, as enlargeShare)',
    options: { tiltedLook: 8, tiltedFrontOnly: true },
    optIn: true,
  },
  {
    label:
      'noedge (a leading "1" kept where its dark runs on out of the box into its place: main before 2026-11-29 15:00)',
    options: { sheetEdgeOne: false },
    optIn: true,
  },
  // Weak lines read again sharpened (sharpenWeakLines): the mask's sigma in the recogniser's 48 px line, and its amount.
  ...[
    [1, 1],
    [2, 1],
    [2, 2],
  ].map(([sigma, amount]) => ({
    label: `sharpen${sigma}x${amount} (a line read empty or under minConfidence read again with an unsharp mask of sigma ${sigma} px, amount ${amount}, in its 48 px line; one read of the two kept)`,
    options: { sharpenWeakLines: { sigma, amount } },
    optIn: true,
  })),
  ...[8, 10].map((degrees) => ({
    label: `tilt${degrees}nocheck (tilt${degrees} with a tilted read stored whether or not it ends in paper: main before 2026-11-29 14:00)`,
    options: { tiltedLook: degrees, rules: { ...DEFAULT_BIB_RULES, tiltedEndsInPaper: false } },
    optIn: true,
  })),
  {
    label: 'tilt8frontnocheck (tilt8front with a tilted read stored whether or not it ends in paper)',
    options: { tiltedLook: 8, tiltedFrontOnly: true, rules: { ...DEFAULT_BIB_RULES, tiltedEndsInPaper: false } },
    optIn: true,
  },
  {
    label:
      'nostrokeone (a "1" a widened read gained kept only when shaped as a digit is, not as a stroke of the line\'s height: main before 2026-11-29 17:30)',
    options: { strokeOnes: false },
    optIn: true,
  },
  {
    label:
      "noshirtprint (a smaller number above or below a runner's bib read as a number of its own: main before 2026-11-29 23:40)",
    options: { rules: { ...DEFAULT_BIB_RULES, shirtPrint: false } },
    optIn: true,
  },
  {
    label: 'nounsure (a number read under the confidence bar never counted: main before 2026-11-30 02:30)',
    options: { rules: { ...DEFAULT_BIB_RULES, unsureConfidence: undefined } },
    optIn: true,
  },
  { label: 'now (as shipped)', options: {} },
];

/**
 * Every variant in one run (CPU figures comparable) but those measured worse on the dev race and RBNR
 * (`optIn`: named in `BENCH_BIB_VARIANTS` only); `BENCH_BIB_NOW_ONLY=1` for the current reader alone,
 * `BENCH_BIB_VARIANTS=before,now` for those variants (first word of the label).
 */
export async function bibRacesBench(rows: BenchRow[], reader: BibReader, fixtures: string): Promise<void> {
  const picked = process.env.BENCH_BIB_VARIANTS?.split(',');
  const variants = process.env.BENCH_BIB_NOW_ONLY
    ? VARIANTS.slice(-1)
    : VARIANTS.filter((v) => (picked ? picked.includes(v.label.split(' ')[0]) : !v.optIn));
  const reads: Array<{ label: string; read: Map<string, ReadPhoto[]>; rules: BibRules }> = [];
  for (const { label, options } of variants) {
    const variant = reader.withOptions(options);
    const rules = options.rules ?? DEFAULT_BIB_RULES;
    reads.push({ label, rules, read: await bibRaces(rows, variant, fixtures, label, rules) });
  }
  const races = await loadRaces(fixtures);
  const heights = bibHeights(
    races,
    reads.map((r) => r.read),
  );
  for (const { label, read, rules } of reads) await heightBands(rows, races, read, rules, heights, label);
  // BENCH_BIB_TRACE=1: where each miss and wrong read is lost, per variant (BENCH_BIB_TRACE_RACES picks the races).
  if (process.env.BENCH_BIB_TRACE) {
    const traced = process.env.BENCH_BIB_TRACE_RACES?.split(',') ?? ['rbnr', 'rbnr-yellow', 'rbnr-q40', 'bibs-1024'];
    for (const { label, options } of variants) {
      const rules = options.rules ?? DEFAULT_BIB_RULES;
      const picked = races.filter((r) => traced.includes(r.name));
      await bibAnatomy(rows, reader.withOptions(options), rules, picked, heights, label.split(' ')[0]);
    }
  }
  if (reads.length > 1) chooseReader(rows, races, reads);
}

/**
 * Each labelled bib's digit height as a share of its photo's height, from its read (whole or not) in any
 * variant on any race of its family, on the largest photos where it was read: a generated race is its
 * source resized, so the share holds on every race of the family. Keyed by family, photo and bib.
 */
function bibHeights(races: Race[], reads: Array<Map<string, ReadPhoto[]>>): Map<string, number> {
  const best = new Map<string, { share: number; imageHeight: number }>();
  for (const race of races) {
    for (const read of reads) {
      for (const photo of read.get(race.name) ?? []) {
        for (const box of photo.boxes) {
          const g = box.geometry;
          const digits = box.text.normalize('NFKC').match(/\d+/g) ?? [];
          if (!g || !digits.some((d) => photo.bibs.has(d))) continue;
          for (const bib of digits.filter((d) => photo.bibs.has(d))) {
            const key = `${race.family}/${photo.name}/${bib}`;
            const known = best.get(key);
            if (!known || g.imageHeight > known.imageHeight)
              best.set(key, { share: g.height / g.imageHeight, imageHeight: g.imageHeight });
          }
        }
      }
    }
  }
  return new Map([...best].map(([key, { share }]) => [key, share]));
}

/** Digit-height bands (pixels of the photo as the reader sees it): under ~12 px a bib is not legible. */
const BANDS = [
  { label: 'under 12 px', low: 0, high: 12 },
  { label: '12-19 px', low: 12, high: 20 },
  { label: '20-39 px', low: 20, high: 40 },
  { label: '40 px and more', low: 40, high: Infinity },
];

/** A photo's height as seen (EXIF orientation applied), within the reader's longest side. */
async function orientedHeight(file: Buffer): Promise<number> {
  const { width = 0, height = 0, orientation = 1 } = await sharp(file).metadata();
  const [w, h] = orientation >= 5 ? [height, width] : [width, height];
  return h * Math.min(1, OCR_MAX_SIDE / Math.max(w, h, 1));
}

/** Recall per digit-height band on every race, with the missed bibs of legible heights named. */
async function heightBands(
  rows: BenchRow[],
  races: Race[],
  read: Map<string, ReadPhoto[]>,
  rules: BibRules,
  heights: Map<string, number>,
  label: string,
): Promise<void> {
  for (const race of races) {
    const photos = read.get(race.name);
    if (!photos) continue;
    const photoHeight = new Map<string, number>();
    for (const p of race.photos) photoHeight.set(p.name, await orientedHeight(p.file));
    const counts = BANDS.map(() => ({ read: 0, all: 0, missed: [] as string[] }));
    const unknown = { read: 0, all: 0, missed: [] as string[] };
    for (const { photo, bib, found } of score(photos, rules).labelled) {
      const share = heights.get(`${race.family}/${photo}/${bib}`);
      const imageHeight = photoHeight.get(photo);
      const px = share !== undefined && imageHeight ? share * imageHeight : undefined;
      const band = px === undefined ? unknown : counts[BANDS.findIndex((b) => px >= b.low && px < b.high)];
      band.all++;
      if (found) band.read++;
      else band.missed.push(px === undefined ? `${bib} (${photo})` : `${bib} (${photo}, ${Math.round(px)} px)`);
    }
    const cell = (c: { read: number; all: number }) =>
      `${c.read}/${c.all}${c.all ? ` (${(c.read / c.all).toFixed(2)})` : ''}`;
    rows.push({
      figure: `BIB recall by digit height, ${label}, race ${race.name}`,
      value: [...BANDS.map((b, i) => `${b.label} ${cell(counts[i])}`), `not read anywhere ${cell(unknown)}`].join('; '),
      target: 'bibs of 20 px and more read (recall >= 0.90)',
      how: [
        'digit height from the read of the bib on the largest photos of its family where any variant read it',
        ...BANDS.map((b, i) => `missed ${b.label}: ${list(counts[i].missed, 20)}`),
        `missed, not read on any race of the family: ${list(unknown.missed, 20)}`,
      ].join('; '),
    });
  }
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
    const others = races.filter((r) => r.family !== race.family && r.trains !== false);
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
 * The 5- and 6-digit bibs of a race (shipped rules, no start list): how many are stored whole, and the fragments
 * stored, a stored read that is a part of a longer labelled number on its photo (the worst error: a participant's
 * search finds another's photo, and theirs is lost).
 */
function longNumbers(rows: BenchRow[], photos: ReadPhoto[], rules: BibRules, label: string, race: string): void {
  let found = 0;
  const missed: string[] = [];
  const fragments: string[] = [];
  for (const photo of photos) {
    const stored = new Set(
      readBibs(photo.boxes, rules, photo.people ?? undefined)
        .filter((r) => !r.partial)
        .map((r) => r.bib),
    );
    const long = [...photo.bibs].filter((b) => b.length >= 5);
    for (const bib of long) {
      if (stored.has(bib)) found++;
      else missed.push(`${bib} (${photo.name})`);
    }
    for (const bib of stored)
      if (!photo.bibs.has(bib) && long.some((l) => l.includes(bib))) fragments.push(`${bib} (${photo.name})`);
  }
  const all = found + missed.length;
  rows.push({
    figure: `BIB 5-6 digit bibs stored whole / fragments of them stored, ${label}, race ${race}`,
    value: `${found}/${all} (${(found / (all || 1)).toFixed(3)}); ${fragments.length} fragments`,
    target: 'every legible one read whole, no fragment stored',
    how: `shipped rules, no start list; missed: ${list(missed, 40)}; fragments stored: ${list(fragments, 40)}`,
  });
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
        `${raceDescription(race.name)}: ${photos.length} photos, ${bibs} labelled bibs, photo level`,
        describe(rules),
        `reader CPU ${cpu.toFixed(2)} s/photo (${mp.toFixed(2)} MP on average)`,
        `wrong: ${list(shipped.wrong)}`,
        `missed: ${list(shipped.missed, 20)}`,
        `partial reads (not stored): ${list(partial)}`,
      ].join('; '),
    });
    // Issue 25 item 3: a fragment of a bib stored as a shorter number goes to another runner's bib.
    const labelsOf = new Map(photos.map((p) => [p.name, p.bibs]));
    const fragments = storedFragments(race.family, shipped.wrong, (photo) => labelsOf.get(photo) ?? []);
    rows.push({
      figure: `BIB fragments stored as a number, ${label}, race ${race.name}`,
      value: `${fragments.length} of ${shipped.fp} wrong reads`,
      target: '0',
      how: `shipped rules, no start list; a wrong read that is a part of a longer bib labelled or seen on its photo, or looked at as one (bib-unlabelled.ts): ${list(fragments)}`,
    });
    if (race.photos.some((p) => [...p.bibs].some((b) => b.length >= 5)))
      longNumbers(rows, photos, rules, label, race.name);
    const others = races.filter((r) => r.family !== race.family && r.trains !== false && read.has(r.name));
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
    // Precision as a person judges it: a read of a bib in the photo that the labels leave out is right.
    const visible = visibleUnlabelled(race.family, heldOut.wrong);
    rows.push({
      figure: `BIB precision by eye, ${label}, race ${race.name} left out`,
      value: precision({ ...heldOut, tp: heldOut.tp + visible.length, fp: heldOut.fp - visible.length }).toFixed(3),
      target: 'precision >= 0.95',
      how: `reads of bibs the labels leave out, looked at (bib-unlabelled.ts), counted right: ${list(visible)}`,
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
        `start list: every number from ${issued.low} to ${issued.high} (the labelled range; 5-6 digit labels one by one)`,
        `${describe(listed)} chosen on ${trainedOn} with their lists`,
        `${withList.completed} fragments completed`,
        `wrong: ${list(withList.wrong)}`,
        `missed: ${list(withList.missed, 20)}`,
      ].join('; '),
    });
    const visibleListed = visibleUnlabelled(race.family, withList.wrong);
    rows.push({
      figure: `BIB precision by eye with a start list, ${label}, race ${race.name} left out`,
      value: precision({
        ...withList,
        tp: withList.tp + visibleListed.length,
        fp: withList.fp - visibleListed.length,
      }).toFixed(3),
      target: 'precision >= 0.98',
      how: `reads of bibs the labels leave out, looked at (bib-unlabelled.ts), counted right: ${list(visibleListed)}`,
    });
  }
  const perPhoto = (name: string) => {
    const photos = read.get(name) ?? [];
    const average = (f: (p: ReadPhoto) => number) => photos.reduce((s, p) => s + f(p), 0) / (photos.length || 1);
    return { cpu: average((p) => p.cpu), mp: average((p) => p.megapixels) };
  };
  if (!read.has('bibs')) return read;
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
