import {
  BibReader,
  BibRules,
  PersonBox,
  readBibs,
  TextBox,
  torsoRegion,
  TracedLine,
  DEFAULT_TORSO_RULES,
} from '@em/ml-worker';
import sharp from 'sharp';
import { BenchRow } from './table';

/** A race as the anatomy needs it: photos with their labelled bibs. */
interface AnatomyRace {
  name: string;
  family: string;
  photos: Array<{ name: string; file: Buffer; bibs: Set<string> }>;
}

/**
 * Where a bib is lost, the stages of the reader in order: (a) no person box covers it, (b) no text line found
 * on the crop, (c) a line found but refused (by which gate), (d) recognised wrong, (e) a fragment or other
 * wrong number stored. `under 12 px` is kept apart: such digits are not legible.
 */
type Stage =
  | 'a. no person covers it'
  | 'b. no line on the crop'
  | 'b. found at no scale'
  | `c. ${string}`
  | 'd. recognised wrong'
  | 'e. fragment stored'
  | 'e. misread stored'
  | 'e. unlabelled number stored';

export interface Traced {
  race: string;
  photo: string;
  bib: string;
  kind: 'missed' | 'wrong';
  stage: Stage;
  detail: string;
  /** Digit height in the photo's pixels, when known. */
  px?: number;
}

const digitRuns = (text = ''): string[] => text.normalize('NFKC').match(/\d+/g) ?? [];

/** One edit (a digit changed, added or left out) turns `a` into `b`, neither holding the other. */
function oneEditApart(a: string, b: string): boolean {
  if (a === b || a.includes(b) || b.includes(a)) return false;
  if (a.length === b.length) return [...a].filter((c, i) => c !== b[i]).length === 1;
  const [s, l] = a.length < b.length ? [a, b] : [b, a];
  if (l.length - s.length !== 1) return false;
  for (let i = 0; i < l.length; i++) if (l.slice(0, i) + l.slice(i + 1) === s) return true;
  return false;
}

/** How a line's text relates to a labelled bib. */
function relation(text: string | undefined, bib: string): 'whole' | 'fragment' | 'misread' | null {
  const runs = digitRuns(text);
  if (runs.some((r) => r.includes(bib))) return 'whole';
  if (runs.some((r) => r.length >= 2 && bib.includes(r))) return 'fragment';
  if (runs.some((r) => oneEditApart(r, bib))) return 'misread';
  return null;
}

const centre = (corners: number[][]) => [
  corners.reduce((s, p) => s + p[0], 0) / corners.length,
  corners.reduce((s, p) => s + p[1], 0) / corners.length,
];
const lineHeight = (corners: number[][]) =>
  Math.max(...corners.map((p) => p[1])) - Math.min(...corners.map((p) => p[1]));
const describeLine = (l: TracedLine) =>
  `"${l.text ?? ''}" ${l.confidence?.toFixed(2) ?? '-'} (${l.fate}, ${l.pass}, scale ${l.scale.toFixed(2)}, ` +
  `${Math.round(lineHeight(l.corners))} px line)`;

/**
 * The lines a detector finds on the whole photo without any gate, at 1x and 2x (`oracle`: a reader without the
 * torso gate and crops), mapped to the photo's pixels: where a missed bib is, when the reader never saw it.
 */
async function oracleLines(oracle: BibReader, file: Buffer, width: number): Promise<TracedLine[]> {
  const lines: TracedLine[] = [];
  for (const factor of [1, 2]) {
    const image =
      factor === 1
        ? file
        : await sharp(file)
            .rotate()
            .resize({ width: width * factor })
            .jpeg()
            .toBuffer();
    const trace: TracedLine[] = [];
    await oracle.candidates(image, trace);
    for (const l of trace)
      lines.push({ ...l, scale: factor, corners: l.corners.map(([x, y]) => [x / factor, y / factor]) });
  }
  return lines;
}

/** Why a labelled bib the reader did not store was lost, from the reader's trace and the oracle's lines. */
async function whyMissed(
  bib: string,
  trace: TracedLine[],
  boxes: TextBox[],
  people: PersonBox[] | null,
  reader: BibReader,
  rules: BibRules,
  oracle: () => Promise<TracedLine[]>,
  size: { width: number; height: number },
): Promise<{ stage: Stage; detail: string }> {
  const whole = trace.filter((l) => relation(l.text, bib) === 'whole');
  const read = whole.find((l) => l.fate === 'read');
  if (read && !digitRuns(read.text).includes(bib)) return { stage: 'd. recognised wrong', detail: describeLine(read) };
  if (read) {
    if ((read.confidence ?? 0) < rules.minConfidence) return { stage: 'c. confidence', detail: describeLine(read) };
    const box = boxes.find((b) => digitRuns(b.text).some((r) => r.includes(bib)));
    const asRead = box && readBibs([box], rules, people ?? undefined).find((r) => r.bib === bib);
    if (box && !asRead)
      return { stage: 'c. bib rules (other text on its line, length, score)', detail: describeLine(read) };
    if (asRead?.partial) {
      const longer = boxes.flatMap((b) => digitRuns(b.text)).find((r) => r.length > bib.length && r.includes(bib));
      return {
        stage: longer ? 'c. partial: inside a longer read' : 'c. partial: cut at the frame',
        detail: `${describeLine(read)}${longer ? `; longer read ${longer}` : ''}`,
      };
    }
    return { stage: 'c. other', detail: describeLine(read) };
  }
  if (whole.length) {
    const gated = whole[0];
    return { stage: `c. ${gated.fate} gate`, detail: describeLine(gated) };
  }
  const near = trace.filter((l) => relation(l.text, bib) !== null);
  const nearRead = near.find((l) => l.fate === 'read');
  if (nearRead) return { stage: 'd. recognised wrong', detail: describeLine(nearRead) };
  if (near.length) return { stage: `c. ${near[0].fate} gate`, detail: `${describeLine(near[0])} (read wrong too)` };
  const found = (await oracle()).filter((l) => relation(l.text, bib) !== null);
  if (!found.length)
    return { stage: 'b. found at no scale', detail: 'no line holds it on the whole photo at 1x or 2x' };
  const where = found.find((l) => relation(l.text, bib) === 'whole') ?? found[0];
  const [cx, cy] = centre(where.corners);
  const atOracle = `oracle ${describeLine(where)} at ${Math.round(cx)},${Math.round(cy)}`;
  const crops = reader.cropsFor(people, size.width, size.height);
  const covered = crops.some((c) => cx >= c.x && cx <= c.x + c.width && cy >= c.y && cy <= c.y + c.height);
  const overlapping = trace.filter((l) => {
    const [lx, ly] = centre(l.corners);
    return Math.abs(lx - cx) < lineHeight(where.corners) * 2 && Math.abs(ly - cy) < lineHeight(where.corners);
  });
  if (overlapping.length)
    return { stage: 'd. recognised wrong', detail: `${describeLine(overlapping[0])}; ${atOracle}` };
  if (covered) return { stage: 'b. no line on the crop', detail: atOracle };
  const trusted = (people ?? []).filter((p) => p.score >= DEFAULT_TORSO_RULES.minPersonScore);
  const aspect = size.width / size.height;
  const inBox = (people ?? []).filter(
    (p) =>
      cx / size.width >= p.x &&
      cx / size.width <= p.x + p.width &&
      cy / size.height >= p.y &&
      cy / size.height <= p.y + p.height,
  );
  const inTorso = trusted.filter((p) => {
    const t = torsoRegion(p, DEFAULT_TORSO_RULES, aspect);
    return cx / size.width >= t.x0 && cx / size.width <= t.x1 && cy / size.height >= t.y0 && cy / size.height <= t.y1;
  });
  const boxNote = inBox.length
    ? `inside person boxes of score ${inBox.map((p) => p.score.toFixed(2)).join(', ')}, torso of ${inTorso.length}`
    : 'inside no person box';
  return { stage: 'a. no person covers it', detail: `${boxNote}; ${trusted.length} people trusted; ${atOracle}` };
}

/** Why a stored number no label holds is stored: a fragment or misread of a labelled bib, or a number to look at. */
function whyWrong(read: string, labelled: Set<string>, trace: TracedLine[]): { stage: Stage; detail: string } {
  const line = trace.find((l) => l.fate === 'read' && digitRuns(l.text).includes(read));
  const detail = line ? describeLine(line) : '';
  const holder = [...labelled].find((b) => b.includes(read));
  if (holder) return { stage: 'e. fragment stored', detail: `of ${holder}; ${detail}` };
  const misread = [...labelled].find((b) => oneEditApart(b, read));
  if (misread) return { stage: 'e. misread stored', detail: `of ${misread}; ${detail}` };
  return { stage: 'e. unlabelled number stored', detail: `look at it; ${detail}` };
}

/**
 * `BENCH_BIB_TRACE=1`: the error anatomy of a reader on each race. Every missed labelled bib and every wrong
 * read is traced to the stage where it is lost (one line each, printed as it goes), then counted per stage.
 * `heights` (digit height as a share of the photo's height, keyed by family/photo/bib) separates illegible
 * bibs (under 12 px).
 */
export async function bibAnatomy(
  rows: BenchRow[],
  reader: BibReader,
  rules: BibRules,
  races: AnatomyRace[],
  heights: Map<string, number>,
  label: string,
): Promise<Traced[]> {
  const oracleReader = reader.withOptions({ torsoGate: false, crops: false });
  const all: Traced[] = [];
  for (const race of races) {
    const traced: Traced[] = [];
    for (const photo of race.photos) {
      const meta = await sharp(photo.file).rotate().toBuffer({ resolveWithObject: true });
      const size = { width: meta.info.width, height: meta.info.height };
      const trace: TracedLine[] = [];
      const { boxes, people } = await reader.candidates(photo.file, trace);
      const stored = new Set(
        readBibs(boxes, rules, people ?? undefined)
          .filter((r) => !r.partial)
          .map((r) => r.bib),
      );
      let oracle: Promise<TracedLine[]> | null = null;
      const lines = () => (oracle ??= oracleLines(oracleReader, photo.file, size.width));
      for (const bib of photo.bibs) {
        if (stored.has(bib)) continue;
        const share = heights.get(`${race.family}/${photo.name}/${bib}`);
        const px = share === undefined ? undefined : share * size.height;
        const why = await whyMissed(bib, trace, boxes, people, reader, rules, lines, size);
        traced.push({ race: race.name, photo: photo.name, bib, kind: 'missed', px, ...why });
      }
      for (const read of stored) {
        if (photo.bibs.has(read)) continue;
        traced.push({
          race: race.name,
          photo: photo.name,
          bib: read,
          kind: 'wrong',
          ...whyWrong(read, photo.bibs, trace),
        });
      }
    }
    for (const t of traced)
      console.log(
        `TRACE ${label} ${t.race} ${t.photo} ${t.kind} ${t.bib}${t.px === undefined ? '' : ` ${Math.round(t.px)}px`}` +
          ` | ${t.stage} | ${t.detail}`,
      );
    const legible = traced.filter((t) => t.kind === 'wrong' || t.px === undefined || t.px >= 12);
    const counts = new Map<string, number>();
    for (const t of legible) counts.set(`${t.kind} ${t.stage}`, (counts.get(`${t.kind} ${t.stage}`) ?? 0) + 1);
    rows.push({
      figure: `BIB error anatomy, ${label}, race ${race.name}`,
      value:
        [...counts]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, n]) => `${k}: ${n}`)
          .join('; ') || 'none',
      target: 'every legible miss and wrong read placed at a stage',
      how:
        `missed bibs of 12 px and more (or of unknown height) and wrong reads; ` +
        `${traced.length - legible.length} misses under 12 px left out; one TRACE line each on stdout`,
    });
    all.push(...traced);
  }
  return all;
}
