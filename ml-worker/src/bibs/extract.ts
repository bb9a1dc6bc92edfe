import { bibEvidence, bibScore } from './bib-score';
import { besideTheirBib, printOnTheirShirt, type PersonBox } from './torso-gate';

/** One text box read by OCR, with its own confidence (0-1). */
export interface TextBox {
  text: string;
  confidence: number;
  /** Each recognised character's confidence, in the order of `text` (absent: only the mean is known). */
  chars?: number[];
  /** Where the box is and what it is printed on; without it (text-only callers) the print rules do not apply. */
  geometry?: BoxGeometry;
  /** Found by a later look alone, where no number was read before: the larger (`largerScale`) or the tilted (`tiltedLook`). */
  look?: 'larger' | 'tilted';
}

/** A text box's bounds (pixels of the analysed image) and luminances (0-255). */
export interface BoxGeometry {
  x: number;
  y: number;
  width: number;
  height: number;
  imageWidth: number;
  imageHeight: number;
  /** Median luminance of a thin strip around the box: the patch the text is printed on. */
  surround: number;
  /**
   * Median luminance inside the box: the ground between the strokes, which cover less than half of a
   * number's box; the patch where the strip around falls off it (a number filling its sheet).
   */
  inner?: number;
  /** 10th and 90th percentile luminance inside the box: the darkest and lightest of ink and patch. */
  dark: number;
  light: number;
  /** Heights (pixels) of the ink blobs that are glyph-sized (taller than a third of the box), left to right. */
  glyphHeights?: number[];
  /** How far the ground the text is printed on reaches beyond the box on each side, in box heights (numbers only). */
  groundReach?: GroundReach;
  /**
   * A glyph shaped as a digit (ground all around, at the digits' height) lies just beside the number on its
   * line, and the read left it out: the number read may be a fragment of a longer one (numbers only).
   */
  digitBeside?: boolean;
  /**
   * Ink crosses the number's middle rows within a quarter of its height beyond its first or last digit, along its
   * line: it does not end in paper (a digit the read left out, or an arm over the sheet) (numbers only).
   */
  endsInInk?: boolean;
}

/** Distances (box heights) from a box's sides to where its ground ends: a paper bib's ends close by, a shirt's does not. */
export interface GroundReach {
  left: number;
  right: number;
  up: number;
  down: number;
}

export interface BibRules {
  minLength: number;
  maxLength: number;
  /** Box confidence a bib needs (every true bib of the fixtures read at >= 0.99; partial ones lower). */
  minConfidence: number;
  /**
   * Whole numbers read from this confidence up to minConfidence are kept unsure (`readBibsWithUnsure`): they count
   * once another photo near in time holds the same number. Undefined: not kept.
   */
  unsureConfidence?: number;
  /**
   * The ink must be darker than the patch around the box by this share of the box's luminance
   * range (true bibs: >= 0.12; light print on a dark ground: ~0.01).
   */
  minInkStep: number;
  /** Least luminance range (0-255) inside the box: printed digits, not a blur or a texture. */
  minPrintContrast: number;
  /**
   * minPrintContrast is the range at full light, scaled by the box's lightest pixels (`light` / 255): print
   * reflects a share of the light it is seen in, so an under-exposed photo or a sheet in shade keeps its bib.
   */
  printContrastOfLight: boolean;
  /** Least bib score (`bibScore`) a number needs; undefined: the token and print rules alone decide. */
  minBibScore?: number;
  /** Ground reach (box heights) under which a side of a number counts as cut by an occluder (`cutNumber`); 0: off. */
  cutReach: number;
  /** A number touching the photo's left or right edge is partial (`cutNumber`). */
  cutAtFrame: boolean;
  /**
   * With cutAtFrame: a number ending closer than this share of its height to the photo's left or right edge
   * touches it (a gap narrower than a digit may hide one beyond the frame).
   */
  frameMargin: number;
  /** A number with a digit-shaped glyph beside it that the read left out is partial (`BoxGeometry.digitBeside`). */
  digitBesideCut: boolean;
  /** A number on one runner's torso beside their more central bib, no larger, is partial (`besideTheirBib`). */
  oneBibPerRunner: boolean;
  /**
   * A number on one runner's torso above or below the largest there, within its width and at most half its height, is
   * print on their clothes (a race shirt's year), not a bib: not read at all (`printOnTheirShirt`).
   */
  shirtPrint: boolean;
  /** A number the tilted look alone found is partial unless it ends in paper on both sides (`tiltedFragment`). */
  tiltedEndsInPaper: boolean;
  /** The ground between a number's strokes is its patch too (`BoxGeometry.inner`: a number filling its sheet). */
  groundBetweenStrokes: boolean;
  /** An end digit read under this confidence, the number's one least sure, is doubtful (`BibRead.weakEnd`). */
  doubtfulDigit: number;
}

/** minConfidence and minBibScore as chosen leave-one-race-out (bench: bib-races): the bib score is off, every split chose 0. */
export const DEFAULT_BIB_RULES: BibRules = {
  minLength: 2,
  maxLength: 6,
  minConfidence: 0.8,
  unsureConfidence: 0.5,
  minInkStep: 0.08,
  minPrintContrast: 40,
  printContrastOfLight: true,
  minBibScore: 0,
  cutReach: 0,
  cutAtFrame: true,
  frameMargin: 0.5,
  digitBesideCut: false,
  oneBibPerRunner: true,
  shirtPrint: true,
  tiltedEndsInPaper: true,
  groundBetweenStrokes: true,
  doubtfulDigit: 0.9,
};

/**
 * What a bib physically is, as far as one OCR text box shows it:
 * - its number is printed much larger than anything else on the bib, so the detector gives it a
 *   line of its own: a box whose line also holds words or other numbers of the same size is a sign,
 *   a plate, a banner or a phone number (`FINISH 42`, `4821 KLM`, `TAXI 06 12 34`), not a bib;
 * - it is dark ink on a light patch (paper or Tyvek): the darkest pixels of the box (the ink) are
 *   clearly darker than the ground they are printed on, seen around the box or, when the number
 *   fills its sheet and the strip around falls on the shirt, between its strokes. With light digits
 *   on a dark ground (jerseys, street and house-number signs, LED race clocks) the darkest pixels of
 *   the box are that ground, as dark as around and between the strokes: not a bib.
 */
export function looksLikeBib(box: TextBox, rules: BibRules = DEFAULT_BIB_RULES): boolean {
  if (numbersAloneInLine(box.text).length !== 1) return false;
  return !box.geometry || printedLikeABib(box.geometry, rules);
}

/** The print half of `looksLikeBib`, known before the text is read (the worker skips reading boxes that fail it). */
export function printedLikeABib(g: BoxGeometry, rules: BibRules = DEFAULT_BIB_RULES): boolean {
  const range = g.light - g.dark;
  const ground = rules.groundBetweenStrokes ? Math.max(g.surround, g.inner ?? 0) : g.surround;
  const minRange = rules.printContrastOfLight ? (rules.minPrintContrast * g.light) / 255 : rules.minPrintContrast;
  return range >= minRange && ground - g.dark >= rules.minInkStep * range;
}

/**
 * The number tokens of a line when the line holds nothing else but stray single characters and
 * punctuation (`#552.`, `N°77`); empty when the line also has words or several numbers.
 */
function numbersAloneInLine(text: string): string[] {
  const tokens = text
    .normalize('NFKC')
    .split(/\s+/)
    .map((t) => t.replace(/^[^0-9A-Za-z]+|[^0-9A-Za-z]+$/g, '').replace(/^N[°o]?(?=\d)/, ''))
    .filter(Boolean);
  const numbers = tokens.filter((t) => /^\d+$/.test(t));
  const words = tokens.filter((t) => !/^\d+$/.test(t) && t.length > 1);
  return numbers.length === 1 && !words.length ? numbers : [];
}

/** One number read as a bib on a photo. */
export interface BibRead {
  bib: string;
  confidence: number;
  /** Where the number is, as shares (0-1) of the photo's width and height; null for text-only callers. */
  box: { x: number; y: number; width: number; height: number } | null;
  /**
   * The number is cut: by the frame's edge, or by something in front of it (the ground it is printed
   * on ends at its first or last digit). Its digits are a part of the bib, not the bib: never stored
   * as a number of their own; a start list may complete them.
   */
  partial: boolean;
  /**
   * The number's first or last digit is its one least sure and doubtful (`doubtfulDigit`): print beside the
   * number may have been read as a digit (a sheet's edge as a leading 1); a start list may know it without.
   */
  weakEnd: 'first' | 'last' | null;
  /** Read under minConfidence (`readBibsWithUnsure`): counted once another photo near in time holds it. */
  unsure?: boolean;
}

/**
 * `readBibs`, and the whole numbers read from `unsureConfidence` up to `minConfidence` that no sure read holds,
 * marked unsure: a runner is in more than one photo, and a number read weakly on one and again on another near it
 * in time is theirs (the photo's save confirms it, core's `settleUnsure` in the photos repository). The sure reads are `readBibs`'s alone.
 */
export function readBibsWithUnsure(
  boxes: TextBox[],
  rules: BibRules = DEFAULT_BIB_RULES,
  people: PersonBox[] = [],
): BibRead[] {
  const sure = readBibs(boxes, rules, people);
  const floor = rules.unsureConfidence;
  if (floor === undefined || floor >= rules.minConfidence) return sure;
  const held = new Set(sure.map((r) => r.bib));
  const unsure = readBibs(boxes, { ...rules, minConfidence: floor }, people).filter(
    (r) => !r.partial && r.confidence < rules.minConfidence && !held.has(r.bib),
  );
  return [...sure, ...unsure.map((r) => ({ ...r, unsure: true }))];
}

/**
 * BIB reads in OCR text boxes: a box that looks like a bib (`looksLikeBib`) and holds one whole
 * token of `minLength`-`maxLength` digits (after NFKC and trimming punctuation, `N°552` -> 552),
 * without leading zero, read with enough confidence and a bib score. Tokens mixing digits with
 * letters or hyphens (plates, "10km", dates) are not bibs. A read whose box is cut (`cutNumber`)
 * is partial; so is a number contained in a longer one read on the same photo, and one beside a runner's own
 * bib on their torso (`oneBibPerRunner`). One read per number and kind, the most confident.
 */
export function readBibs(boxes: TextBox[], rules: BibRules = DEFAULT_BIB_RULES, people: PersonBox[] = []): BibRead[] {
  const reads = new Map<string, BibRead>();
  const allDigits = new Set<string>();
  for (const box of boxes) {
    for (const digits of box.text.normalize('NFKC').match(/\d+/g) ?? []) allDigits.add(digits.replace(/^0+(?=\d)/, ''));
  }
  const numbers: Array<{ box: TextBox; token: string }> = [];
  for (const box of boxes) {
    if (box.confidence < rules.minConfidence || !looksLikeBib(box, rules)) continue;
    const [token] = numbersAloneInLine(box.text.normalize('NFKC'));
    if (token.startsWith('0') || token.length < rules.minLength || token.length > rules.maxLength) continue;
    if (rules.minBibScore !== undefined && bibScore(bibEvidence(box, token, boxes, people)) < rules.minBibScore)
      continue;
    numbers.push({ box, token });
  }
  const partOfALongerOne = (token: string) =>
    [...allDigits].some((other) => other.length > token.length && other.includes(token));
  // A part of a number read on the photo is that number seen again, not a second bib beside a runner's own.
  const onTorsos = numbers.filter((n) => n.box.geometry && !partOfALongerOne(n.token) && !tiltedFragment(n.box, rules));
  // Print on a runner's clothes is no read at all (a start list would complete a fragment to it).
  const shirt = rules.shirtPrint
    ? printOnTheirShirt(
        onTorsos.map((n) => n.box.geometry!),
        people,
      )
    : [];
  const printed = new Set(onTorsos.filter((_, i) => shirt[i]).map((n) => n.box));
  const placed = onTorsos.filter((n) => !printed.has(n.box));
  const beside = new Set(
    rules.oneBibPerRunner
      ? besideTheirBib(
          placed.map((n) => n.box.geometry!),
          people,
        ).flatMap((cut, i) => (cut ? [placed[i].box] : []))
      : [],
  );
  for (const { box, token } of numbers) {
    if (printed.has(box)) continue;
    const inALongerOne = partOfALongerOne(token);
    const partial =
      inALongerOne ||
      beside.has(box) ||
      tiltedFragment(box, rules) ||
      (box.geometry ? cutNumber(box.geometry, rules) : false);
    const key = `${token}${partial ? '~' : ''}`;
    const known = reads.get(key);
    if (known && known.confidence >= box.confidence) continue;
    const g = box.geometry;
    const where = g
      ? {
          x: g.x / g.imageWidth,
          y: g.y / g.imageHeight,
          width: g.width / g.imageWidth,
          height: g.height / g.imageHeight,
        }
      : null;
    reads.set(key, { bib: token, confidence: box.confidence, box: where, partial, weakEnd: weakEnd(box, rules) });
  }
  return [...reads.values()];
}

/** Which end digit of a box's number is doubtful: the one least sure digit, under `doubtfulDigit` (`BibRead.weakEnd`). */
export function weakEnd(box: TextBox, rules: Pick<BibRules, 'doubtfulDigit'> = DEFAULT_BIB_RULES): BibRead['weakEnd'] {
  const chars = box.chars;
  if (!chars || chars.length !== box.text.length) return null;
  const digits = [...box.text].flatMap((c, i) => (/\d/.test(c) ? [chars[i]] : []));
  const weakest = Math.min(...digits);
  if (digits.length < 3 || weakest >= rules.doubtfulDigit || digits.filter((c) => c === weakest).length > 1)
    return null;
  if (digits[0] === weakest) return 'first';
  return digits[digits.length - 1] === weakest ? 'last' : null;
}

/**
 * Whether a number's box is cut, so that its digits may be part of a longer bib: it touches the
 * photo's left or right edge (within `frameMargin` of its height), or the ground it is printed on ends at
 * its first or last digit (an arm, a hand or another runner in front: reach under `cutReach` box
 * heights on that side) while it goes on beyond the other side (a bib's margin, more than
 * `cutReach` x 3). A bib whose print fills its sheet edge to edge ends on both sides: not cut.
 */
export function cutNumber(
  g: BoxGeometry,
  rules: Pick<BibRules, 'cutReach' | 'cutAtFrame'> &
    Partial<Pick<BibRules, 'digitBesideCut' | 'frameMargin'>> = DEFAULT_BIB_RULES,
): boolean {
  if (rules.digitBesideCut && g.digitBeside) return true;
  const slack = Math.max(1, (rules.frameMargin ?? 0.1) * g.height);
  if (rules.cutAtFrame && (g.x <= slack || g.x + g.width >= g.imageWidth - slack)) return true;
  const reach = g.groundReach;
  if (!reach || rules.cutReach <= 0) return false;
  const [near, far] = reach.left < reach.right ? [reach.left, reach.right] : [reach.right, reach.left];
  return near < rules.cutReach && far > 3 * rules.cutReach;
}

/**
 * Whether a number the tilted look alone found is a fragment: with `tiltedEndsInPaper`, ink beside its first or
 * last digit (`BoxGeometry.endsInInk`). The tilted look finds print the level look missed, a half-hidden sheet's
 * too, and its turned box can split a number in two; a whole number ends in its sheet's paper on both sides.
 */
export function tiltedFragment(box: TextBox, rules: Pick<BibRules, 'tiltedEndsInPaper'> = DEFAULT_BIB_RULES): boolean {
  return rules.tiltedEndsInPaper && box.look === 'tilted' && !!box.geometry?.endsInInk;
}

/** BIB numbers of a photo to store: its whole reads (`readBibs`), bib -> best confidence. */
export function extractBibs(
  boxes: TextBox[],
  rules: BibRules = DEFAULT_BIB_RULES,
  people: PersonBox[] = [],
): Map<string, number> {
  const found = new Map<string, number>();
  for (const read of readBibs(boxes, rules, people))
    if (!read.partial) found.set(read.bib, Math.max(found.get(read.bib) ?? 0, read.confidence));
  return found;
}
