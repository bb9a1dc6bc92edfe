import { BibRules, BoxGeometry, printedLikeABib, TextBox } from './extract';
import { onATorso, PersonBox, placedLikeABib, TorsoRules } from './torso-gate';
import { numberCorners, numberGeometry, printGeometry, Rgba } from './box-geometry';
import type { LineReading } from './recognise-line';
import {
  boundsIou,
  cornerBounds,
  cropRgba,
  FoundText,
  planSecondLook,
  Region,
  readOnce,
  TextCrop,
  otherViews,
  TextCropOptions,
  touchesInnerEdge,
} from './text-crops';
import type { TextLine } from './text-detection';
import {
  chooseWidenedRead,
  glyphAtEnds,
  glyphsBeyondBox,
  leadingOneIsSheetEdge,
  startsWithOne,
  widenedReadCanGain,
} from './widened-read';

/** The OCR models as the reader runs them: text lines of an image at a scale, and one line read. */
export interface TextOcr {
  detect(image: Rgba, scale: number): Promise<TextLine[]>;
  /**
   * The detector run again on a crop where `detect` found no print that passes the gates, on another view of
   * its pixels (its luminance: a sheet's colour the detector does not take for paper); absent: no second try.
   */
  detectAgain?(image: Rgba, scale: number): Promise<TextLine[]>;
  /** `detectAgain` also runs, after recognition, on the crops where no number was read in the middle. */
  againWhereNoNumber?: boolean;
  /**
   * A look again at the crops where no number was read in the middle after the passes before it: the detector (on
   * `detectAgain`'s view when there is one) at this many times the crop's scale, up to `largerUpTo`. A runner's bib
   * can be smaller than their size implies (arms spread, a bib worn low), and the detector misses a small line on a
   * tinted sheet at the scale chosen for the implied one; absent: no such look.
   */
  largerScale?: number;
  /** The largest scale the larger look runs at (the crops' own maximum); crops already there are not looked at. */
  largerUpTo?: number;
  /** The larger look sees only the part of a crop around its middle (`aroundMiddle`), not its margins. */
  largerAroundMiddle?: boolean;
  /** The larger look only on the crops of the people in front (`TextCrop.front`); else on every crop. */
  largerFrontOnly?: boolean;
  /**
   * The detector on another input of a crop's pixels (another normalisation), run on the crops where no number
   * was read: a line one input's detector misses, the other's may find; absent: no such pass.
   */
  detectOther?(image: Rgba, scale: number): Promise<TextLine[]>;
  /**
   * The detector on a crop's pixels turned either way (a bib tilted on a turning body, which the detector misses
   * level), run on the crops where no number was read; absent: no such pass.
   */
  detectTilted?(image: Rgba, scale: number): Promise<TextLine[]>;
  /** `detectTilted` only on the crops of the people in front (`TextCrop.front`); else on every crop. */
  tiltedFrontOnly?: boolean;
  /** A leading "1" that is the sheet's edge is left out of the read as cut (`leadingOneIsSheetEdge`). */
  sheetEdgeOne?: boolean;
  /** A widened read's gained "1" is kept when it is a stroke of the line's height ending in paper (`printedStroke`). */
  strokeOnes?: boolean;
  recognise(line: TextLine): Promise<LineReading | undefined>;
  /**
   * The recogniser on a line's pixels sharpened (`unsharpMask`: a stroke blurred by motion or focus), run on the lines
   * read empty or under `sharpenBelow`; one read of the two kept (`oneRead`). Absent: no such read.
   */
  recogniseSharpened?(line: TextLine): Promise<LineReading | undefined>;
  sharpenBelow?: number;
}

/**
 * One text line the detector found and what became of it (the bench's error anatomy, BENCH_BIB_TRACE): refused
 * by a gate, left to a crop that sees it better, or read. With a trace every line is read, refused ones too.
 */
export interface TracedLine {
  /** The detector's corners in the analysed image's pixels. */
  corners: number[][];
  scale: number;
  pass: 'colour' | 'luminance' | 'larger' | 'other input' | 'tilted' | 'second look';
  fate: 'cut by its crop' | 'print' | 'torso' | 'read elsewhere' | 'read';
  text?: string;
  confidence?: number;
}

/**
 * The text boxes of the crops printed as a bib is (dark on a lighter patch) and, with `people`, lying
 * on someone's torso, each read once. Recognition (the costly part per box) runs only for boxes
 * the gates accept, once per printed text however many crops see it (readOnce), and the glyph pass
 * only for what reads as a number. With `secondLook` (the crop options), the people on whom no number
 * was read are looked at again at the largest scale (`planSecondLook`); only text new to that pass is read.
 * With `everyView`, a number is also read in the other crops' views of it, and one read kept (`oneRead`).
 * With `ocr.detectOther`, the crops on which no number was read are detected again on that input.
 */
export async function readTextBoxes(
  ocr: TextOcr,
  pixels: Rgba,
  crops: TextCrop[],
  people: PersonBox[] | null,
  rules: BibRules,
  torso: TorsoRules,
  inkBoxes = true,
  secondLook: TextCropOptions | null = null,
  trace?: TracedLine[],
  everyView = false,
): Promise<TextBox[]> {
  const recogniseOnce = (lines: Printed[], once: Printed[], look?: TextBox['look']) =>
    everyView
      ? recogniseViews(ocr, pixels, lines, once, rules.minConfidence, look)
      : recognise(ocr, pixels, once, look);
  const lookedAgain = new Set<TextCrop>();
  const found = await findPrinted(
    ocr,
    pixels,
    crops,
    people,
    rules,
    torso,
    inkBoxes,
    trace && { trace, pass: 'colour' },
    lookedAgain,
  );
  const once = readOnce(found, pixels.width, pixels.height);
  if (trace) await traceRead(ocr, pixels, found, once);
  let boxes = await recogniseOnce(found, once);
  // A later pass reads only text no pass found before (a sign or a word above the number is found by both).
  const readAgain = async (
    passOcr: TextOcr,
    passCrops: TextCrop[],
    pass: TracedLine['pass'],
    look?: TextBox['look'],
  ): Promise<TextBox[]> => {
    const more = await findPrinted(
      passOcr,
      pixels,
      passCrops,
      people,
      rules,
      torso,
      inkBoxes,
      trace && { trace, pass },
    );
    const fresh = readOnce(more, pixels.width, pixels.height).filter(
      (f) => !found.some((k) => sameText(k.corners, f.corners)),
    );
    if (trace) await traceRead(ocr, pixels, more, fresh);
    found.push(...more);
    return recogniseOnce(more, fresh, look);
  };
  // A crop yields a number when one is read in its middle (its person's torso; a neighbour's bib shows at its sides).
  const bareCrops = () => {
    const numbers = boxes.filter((b) => /\d/.test(b.text) && b.geometry).map((b) => b.geometry!);
    return crops.filter((crop) => !numbers.some((g) => centredIn(g, middleOf(crop))));
  };
  // The crop planner tells who stands in front; a later look there only, or on every crop.
  const inFront = (only?: boolean) => (crop: TextCrop) => !only || crop.front !== false;
  const detectAgain = ocr.detectAgain?.bind(ocr);
  if (detectAgain && ocr.againWhereNoNumber) {
    // A tinted sheet beside print that passed in colour; a crop already seen in luminance is not looked at twice.
    const again: TextOcr = { detect: detectAgain, recognise: (line) => ocr.recognise(line) };
    boxes = [
      ...boxes,
      ...(await readAgain(
        again,
        bareCrops().filter((crop) => !lookedAgain.has(crop)),
        'luminance',
      )),
    ];
  }
  if (ocr.largerScale) {
    const upTo = ocr.largerUpTo ?? Infinity;
    const enlarged = bareCrops()
      .filter(inFront(ocr.largerFrontOnly))
      .map((crop) => ({ crop, scale: Math.min(upTo, crop.scale * ocr.largerScale!) }))
      .filter(({ crop, scale }) => scale >= MIN_ENLARGEMENT * crop.scale)
      .map(({ crop, scale }) => ({ ...(ocr.largerAroundMiddle ? aroundMiddle(crop) : crop), scale }));
    const detect = detectAgain ?? ((image: Rgba, scale: number) => ocr.detect(image, scale));
    const larger: TextOcr = { detect, recognise: (line) => ocr.recognise(line) };
    boxes = [...boxes, ...(await readAgain(larger, enlarged, 'larger', 'larger'))];
  }
  const detectOther = ocr.detectOther?.bind(ocr);
  if (detectOther) {
    const other: TextOcr = { detect: detectOther, recognise: (line) => ocr.recognise(line) };
    boxes = [...boxes, ...(await readAgain(other, bareCrops(), 'other input'))];
  }
  const detectTilted = ocr.detectTilted?.bind(ocr);
  if (detectTilted) {
    const tilted: TextOcr = { detect: detectTilted, recognise: (line) => ocr.recognise(line) };
    boxes = [
      ...boxes,
      ...(await readAgain(tilted, bareCrops().filter(inFront(ocr.tiltedFrontOnly)), 'tilted', 'tilted')),
    ];
  }
  if (!people || !secondLook) return boxes;
  const numbers = boxes.filter((b) => /\d/.test(b.text) && b.geometry).map((b) => b.geometry!);
  const hasNumber = (person: PersonBox) => numbers.some((g) => onATorso(g, [person], torso));
  const looks = planSecondLook(people, hasNumber, pixels.width, pixels.height, torso, secondLook);
  if (!looks.length) return boxes;
  return [...boxes, ...(await readAgain(ocr, looks, 'second look'))];
}

type Printed = FoundText & { line: TextLine; geometry: BoxGeometry; traced?: TracedLine };

interface Tracing {
  trace: TracedLine[];
  pass: TracedLine['pass'];
}

/** Traces what each printed line read as, and which were left to another crop's view of the same text. */
async function traceRead(ocr: TextOcr, pixels: Rgba, found: Printed[], once: Printed[]) {
  for (const printed of found) {
    if (!printed.traced) continue;
    const reading = await readLine(ocr, pixels, printed.line, printed.crop);
    printed.traced.fate = once.includes(printed) ? 'read' : 'read elsewhere';
    Object.assign(printed.traced, { text: reading?.text, confidence: reading?.mean });
  }
}

/** Traces a line a gate refused, read all the same (the trace alone pays for it). */
async function traceRefused(
  ocr: TextOcr,
  tracing: Tracing | undefined,
  line: TextLine,
  corners: number[][],
  scale: number,
  fate: TracedLine['fate'],
) {
  if (!tracing) return;
  const reading = await ocr.recognise(line);
  tracing.trace.push({ corners, scale, pass: tracing.pass, fate, text: reading?.text, confidence: reading?.mean });
}

/** The text lines of the crops printed as a bib is and, with `people`, on someone's torso. */
async function findPrinted(
  ocr: TextOcr,
  pixels: Rgba,
  crops: TextCrop[],
  people: PersonBox[] | null,
  rules: BibRules,
  torso: TorsoRules,
  inkBoxes: boolean,
  tracing?: Tracing,
  lookedAgain?: Set<TextCrop>,
): Promise<Printed[]> {
  const found: Printed[] = [];
  for (const crop of crops) {
    const whole = crop.width === pixels.width && crop.height === pixels.height;
    const image = whole ? pixels : cropRgba(pixels, crop);
    const printed = async (lines: TextLine[], pass: TracedLine['pass']) => {
      const kept: Printed[] = [];
      const traced = tracing && { ...tracing, pass: tracing.pass === 'colour' ? pass : tracing.pass };
      for (const line of lines) {
        const corners = line.box.map(([x, y]) => [x + crop.x, y + crop.y]);
        const refused = (fate: TracedLine['fate']) => traceRefused(ocr, traced, line, corners, crop.scale, fate);
        // Cut by the crop: a neighbour's crop sees it whole.
        if (touchesInnerEdge(corners, crop, pixels.width, pixels.height)) {
          await refused('cut by its crop');
          continue;
        }
        const geometry = printGeometry(pixels, inkBoxes ? numberCorners(pixels, corners) : corners);
        if (!printedLikeABib(geometry, rules)) {
          await refused('print'); // not dark print on a patch: no need to read it
          continue;
        }
        if (people && !placedLikeABib(geometry, people, torso)) {
          await refused('torso'); // on nobody: a sign, a plate, a clock
          continue;
        }
        const entry: TracedLine | undefined = traced && { corners, scale: crop.scale, pass: traced.pass, fate: 'read' };
        if (entry) traced?.trace.push(entry);
        kept.push({ line, corners, crop, geometry, traced: entry });
      }
      return kept;
    };
    let kept = await printed(await ocr.detect(image, crop.scale), 'colour');
    if (!kept.length && ocr.detectAgain) {
      lookedAgain?.add(crop);
      kept = await printed(await ocr.detectAgain(image, crop.scale), 'luminance');
    }
    found.push(...kept);
  }
  return found;
}

async function recognise(ocr: TextOcr, pixels: Rgba, found: Printed[], look?: TextBox['look']): Promise<TextBox[]> {
  const boxes: TextBox[] = [];
  for (const { line, geometry, crop } of found) {
    const result = await sharpenedWhereWeak(ocr, pixels, line, crop, await readLine(ocr, pixels, line, crop));
    if (!result) continue;
    // Glyph heights and ground reach weigh numbers only (bibEvidence).
    const number = /\d/.test(result.text);
    const read = { text: result.text, confidence: result.mean, chars: result.chars, ...(look && { look }) };
    if (!number) boxes.push({ ...read, geometry });
    else
      boxes.push({
        ...read,
        geometry: {
          ...numberGeometry(pixels, geometry),
          digitBeside: digitBeside(pixels, line, crop, result),
          // Only a tilted read's ends are weighed (`tiltedFragment`).
          ...(look === 'tilted' && { endsInInk: endsInInk(pixels, line, crop) }),
        },
      });
  }
  return boxes;
}

/**
 * Each kept line read and, where it reads as a number, the other crops' views of it too (`otherViews`: another
 * scale, another cut of its ends): one read per text, as `oneRead` weighs them.
 */
async function recogniseViews(
  ocr: TextOcr,
  pixels: Rgba,
  found: Printed[],
  once: Printed[],
  minConfidence: number,
  look?: TextBox['look'],
): Promise<TextBox[]> {
  const boxes: TextBox[] = [];
  for (const kept of once) {
    let [read] = await recognise(ocr, pixels, [kept], look);
    if (!read) continue;
    if (/\d/.test(read.text))
      for (const view of otherViews(found, kept)) {
        const [other] = await recognise(ocr, pixels, [view], look);
        if (other) read = oneRead(read, other, minConfidence);
      }
    boxes.push(read);
  }
  return boxes;
}

/**
 * One read of a number two views read: where one's digits hold the other's (`463` in `1463`: an end cut or a digit
 * lost), the longer when read with `minConfidence`, else the shorter; where they differ otherwise (a digit misread),
 * the more confident; the first on a tie. A view read without digits leaves the number's read.
 */
export function oneRead<T extends { text: string; confidence: number }>(a: T, b: T, minConfidence: number): T {
  const [da, db] = [a.text.replace(/\D/g, ''), b.text.replace(/\D/g, '')];
  if (!db) return a;
  if (da !== db && (da.includes(db) || db.includes(da))) {
    const [longer, shorter] = da.length > db.length ? [a, b] : [b, a];
    return longer.confidence >= minConfidence ? longer : shorter;
  }
  return b.confidence > a.confidence ? b : a;
}

/** A line read as cut or, widened, with what the widening gained kept only when it is a digit's glyph. */
async function readLine(ocr: TextOcr, pixels: Rgba, line: TextLine, crop: Region): Promise<KeptReading | undefined> {
  const read = await readWidened(ocr, pixels, line, crop);
  // The widened read, seeing the sheet's side whole, must leave the "1" out too: the box's start alone is no proof.
  if (!read || !ocr.sheetEdgeOne || read.widenedGain || read.wideText !== read.text.slice(1)) return read;
  const [image, box] = line.widened?.levelled
    ? [line.widened.levelled.pixels, line.widened.levelled.box]
    : [pixels, line.box.map(([x, y]) => [x + crop.x, y + crop.y])];
  if (!leadingOneIsSheetEdge(image, box, read.text)) return read;
  const chars = read.chars.slice(1);
  return { ...read, text: read.text.slice(1), chars, mean: chars.reduce((a, b) => a + b, 0) / chars.length };
}

async function readWidened(ocr: TextOcr, pixels: Rgba, line: TextLine, crop: Region): Promise<KeptReading | undefined> {
  if (!line.widened) return ocr.recognise(line);
  const { image, region, glyphCheck, levelled, thinStrokes } = line.widened;
  if (!glyphCheck) {
    const wide = await ocr.recognise({ ...line, image });
    return wide && { ...wide, widenedGain: true };
  }
  const narrow = await ocr.recognise(line);
  const [ground, box, around] = levelled
    ? [levelled.pixels, levelled.box, region]
    : [
        pixels,
        line.box.map(([x, y]) => [x + crop.x, y + crop.y]),
        { ...region, x: region.x + crop.x, y: region.y + crop.y },
      ];
  const glyphs = glyphsBeyondBox(ground, box, around, thinStrokes);
  // No glyph the widened read could gain, and no leading "1" for it to weigh (readLine): the read as cut stands.
  const weighsOne = ocr.sheetEdgeOne && narrow !== undefined && startsWithOne(narrow.text);
  if (!widenedReadCanGain(glyphs, ocr.strokeOnes) && !weighsOne) return narrow && { ...narrow, widenedGain: false };
  const wide = await ocr.recognise({ ...line, image });
  const kept = chooseWidenedRead(narrow, wide, ground, box, around, thinStrokes, ocr.strokeOnes, glyphs);
  return kept && { ...kept, widenedGain: kept === wide && wide.text !== narrow?.text, wideText: wide?.text };
}

/**
 * A line read empty or under `ocr.sharpenBelow` read again sharpened (`recogniseSharpened`), one read of the two kept as
 * two views' are (`oneRead`); a read that passes the bar is left as it is (sharpened, 311 read 371 more surely).
 */
async function sharpenedWhereWeak(
  ocr: TextOcr,
  pixels: Rgba,
  line: TextLine,
  crop: Region,
  read: KeptReading | undefined,
): Promise<KeptReading | undefined> {
  const sharpened = ocr.recogniseSharpened?.bind(ocr);
  const below = ocr.sharpenBelow ?? 0;
  if (!sharpened || (read && read.mean >= below)) return read;
  const sharp = await readLine(
    {
      detect: (image, scale) => ocr.detect(image, scale),
      recognise: sharpened,
      sheetEdgeOne: ocr.sheetEdgeOne,
      strokeOnes: ocr.strokeOnes,
    },
    pixels,
    line,
    crop,
  );
  if (!sharp) return read;
  if (!read) return sharp;
  const asBox = (r: KeptReading) => ({ text: r.text, confidence: r.mean, reading: r });
  return oneRead(asBox(read), asBox(sharp), below).reading;
}

/** A line's read, whether it is the widened read that took in glyphs beyond the box, and what the widened read read. */
type KeptReading = LineReading & { widenedGain?: boolean; wideText?: string };

/**
 * Whether a digit-shaped glyph lies beside a line's box, within its widened region, that the read kept did not
 * take in (a widened read that gained a glyph took it). A slanted line, never widened, is not judged.
 */
function digitBeside(pixels: Rgba, line: TextLine, crop: Region, kept: KeptReading): boolean {
  if (!line.widened || kept.widenedGain || line.widened.levelled) return false;
  const box = line.box.map(([x, y]) => [x + crop.x, y + crop.y]);
  const { region } = line.widened;
  return glyphsBeyondBox(pixels, box, { ...region, x: region.x + crop.x, y: region.y + crop.y }).some((g) => g.digit);
}

/** How far beyond a number's ends (share of its height) its paper must go on: a gap between two digits is less. */
const PAPER_BEYOND = 0.25;

/**
 * Whether a number's line does not end in paper on both sides (`glyphAtEnds`), along a slanted line's own axis: on
 * its levelled cut. A line never widened (neither level nor levelled) is not judged.
 */
export function endsInInk(pixels: Rgba, line: TextLine, crop: Region): boolean {
  if (!line.widened) return false;
  const { levelled } = line.widened;
  if (levelled) return glyphAtEnds(levelled.pixels, levelled.box, PAPER_BEYOND);
  return glyphAtEnds(
    pixels,
    line.box.map(([x, y]) => [x + crop.x, y + crop.y]),
    PAPER_BEYOND,
  );
}

/** The least enlargement the larger look runs at: nearly the scale already looked at shows the detector nothing new. */
const MIN_ENLARGEMENT = 1.25;

/** A crop's middle: half its width, the middle three fifths of its height. */
function middleOf(crop: Region): Region {
  return {
    x: crop.x + crop.width / 4,
    y: crop.y + crop.height / 5,
    width: crop.width / 2,
    height: (crop.height * 3) / 5,
  };
}

/**
 * The part of a crop that holds whole a number centred in its middle (`middleOf`): three quarters of its width,
 * four fifths of its height, in whole pixels.
 */
function aroundMiddle(crop: Region): Region {
  const x = Math.round(crop.x + crop.width / 8);
  const y = Math.round(crop.y + crop.height / 10);
  return { x, y, width: Math.round((crop.width * 3) / 4), height: Math.round((crop.height * 4) / 5) };
}

/** Whether a box's centre lies inside a region. */
function centredIn(g: BoxGeometry, crop: Region): boolean {
  const [cx, cy] = [g.x + g.width / 2, g.y + g.height / 2];
  return cx >= crop.x && cx < crop.x + crop.width && cy >= crop.y && cy < crop.y + crop.height;
}

/** Two text boxes overlapping by more than half their union: the same text. */
function sameText(a: number[][], b: number[][]): boolean {
  return boundsIou(cornerBounds(a), cornerBounds(b)) > 0.5;
}
