import { bibEvidence, bibScore } from './bib-score';
import type { PersonBox } from './torso-gate';

/** One text box read by OCR, with its own confidence (0-1). */
export interface TextBox {
  text: string;
  confidence: number;
  /** Each recognised character's confidence, in the order of `text` (absent: only the mean is known). */
  chars?: number[];
  /** Where the box is and what it is printed on; without it (text-only callers) the print rules do not apply. */
  geometry?: BoxGeometry;
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
  /** 10th and 90th percentile luminance inside the box: the darkest and lightest of ink and patch. */
  dark: number;
  light: number;
  /** Heights (pixels) of the ink blobs that are glyph-sized (taller than a third of the box), left to right. */
  glyphHeights?: number[];
  /** How far the ground the text is printed on reaches beyond the box on each side, in box heights (numbers only). */
  groundReach?: GroundReach;
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
   * The ink must be darker than the patch around the box by this share of the box's luminance
   * range (true bibs: >= 0.12; light print on a dark ground: ~0.01).
   */
  minInkStep: number;
  /** Least luminance range (0-255) inside the box: printed digits, not a blur or a texture. */
  minPrintContrast: number;
  /** Least bib score (`bibScore`) a number needs; undefined: the token and print rules alone decide. */
  minBibScore?: number;
}

/** minBibScore: the middle of the plateau (0.6-0.8) where the tuning half loses no bib and refuses the most (bench: bib-precision). */
export const DEFAULT_BIB_RULES: BibRules = { minLength: 2, maxLength: 5, minConfidence: 0.95, minInkStep: 0.08, minPrintContrast: 40, minBibScore: 0.7 };

/**
 * What a bib physically is, as far as one OCR text box shows it:
 * - its number is printed much larger than anything else on the bib, so the detector gives it a
 *   line of its own: a box whose line also holds words or other numbers of the same size is a sign,
 *   a plate, a banner or a phone number (`FINISH 42`, `4821 KLM`, `TAXI 06 12 34`), not a bib;
 * - it is dark ink on a light patch (paper or Tyvek): the darkest pixels of the box (the ink) are
 *   clearly darker than what surrounds the box. With light digits on a dark ground (jerseys,
 *   street and house-number signs, LED race clocks) the darkest pixels of the box are that ground,
 *   as dark as its surroundings: not a bib.
 */
export function looksLikeBib(box: TextBox, rules: BibRules = DEFAULT_BIB_RULES): boolean {
  if (numbersAloneInLine(box.text).length !== 1) return false;
  return !box.geometry || printedLikeABib(box.geometry, rules);
}

/** The print half of `looksLikeBib`, known before the text is read (the worker skips reading boxes that fail it). */
export function printedLikeABib(g: BoxGeometry, rules: BibRules = DEFAULT_BIB_RULES): boolean {
  const range = g.light - g.dark;
  return range >= rules.minPrintContrast && g.surround - g.dark >= rules.minInkStep * range;
}

/**
 * The number tokens of a line when the line holds nothing else but stray single characters and
 * punctuation (`#552.`, `N°77`); empty when the line also has words or several numbers.
 */
function numbersAloneInLine(text: string): string[] {
  const tokens = text.normalize('NFKC').split(/\s+/).map((t) => t.replace(/^[^0-9A-Za-z]+|[^0-9A-Za-z]+$/g, '').replace(/^N[°o]?(?=\d)/, '')).filter(Boolean);
  const numbers = tokens.filter((t) => /^\d+$/.test(t));
  const words = tokens.filter((t) => !/^\d+$/.test(t) && t.length > 1);
  return numbers.length === 1 && !words.length ? numbers : [];
}

/**
 * BIB numbers in OCR text boxes: a box that looks like a bib (`looksLikeBib`) and holds one whole
 * token of 2-5 digits (after NFKC and trimming punctuation, `N°552` -> 552), without leading zero,
 * read with enough confidence. Tokens mixing digits with letters or hyphens (plates, "10km", dates)
 * are not bibs. A number contained in a longer one read on the same photo (a partly hidden bib) is
 * dropped. Returns bib -> best confidence.
 */
export function extractBibs(boxes: TextBox[], rules: BibRules = DEFAULT_BIB_RULES, people: PersonBox[] = []): Map<string, number> {
  const found = new Map<string, number>();
  const allDigits = new Set<string>();
  for (const box of boxes) {
    const normalised = box.text.normalize('NFKC');
    for (const digits of normalised.match(/\d+/g) ?? []) allDigits.add(digits.replace(/^0+(?=\d)/, ''));
    if (box.confidence < rules.minConfidence || !looksLikeBib(box, rules)) continue;
    const [token] = numbersAloneInLine(normalised);
    if (token.startsWith('0') || token.length < rules.minLength || token.length > rules.maxLength) continue;
    if (rules.minBibScore !== undefined && bibScore(bibEvidence(box, token, boxes, people)) < rules.minBibScore) continue;
    found.set(token, Math.max(found.get(token) ?? 0, box.confidence));
  }
  for (const bib of [...found.keys()]) {
    if ([...allDigits].some((other) => other.length > bib.length && other.includes(bib))) found.delete(bib);
  }
  return found;
}
