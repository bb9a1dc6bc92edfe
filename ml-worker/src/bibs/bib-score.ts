import type { BoxGeometry, TextBox } from './extract';
import { DEFAULT_TORSO_RULES, onATorso, PersonBox, torsoRegion, TorsoRules } from './torso-gate';

/** What a number's box shows beyond its text, each measured so that a printed bib is at its best. */
export interface BibEvidence {
  /** Weakest digit's confidence (the mean hides one doubtful digit). */
  weakestChar: number;
  /** Letters read on the line beside the number (`l 2695 .` has 1; punctuation is not counted). */
  letters: number;
  /** Glyph-sized ink blobs minus digits (touching digits make it negative; letters, frames and marks positive). */
  extraGlyphs: number;
  /** Shortest over tallest glyph (1: every digit the same height). */
  glyphHeightRatio: number;
  /** Box width per digit over box height (bold bib digits: 0.45-0.88 on the fixtures). */
  widthPerDigit: number;
  /** This number's height over the tallest text's on the same person (1: the largest). */
  heightShareOnPerson: number;
  /**
   * The number's height over the height of the person it is on (the tallest such person): a bib's
   * digits are 8-10 cm on a runner (fixtures 0.019-0.061); jersey numbers and shirt prints run larger.
   */
  heightPerPerson: number;
  /** Other text boxes of about its height on its line, close beside it (`EST. 1987`, `TEAM 23` read as two boxes). */
  sameSizeNeighbours: number;
  /**
   * How far the ground the number is printed on goes on beyond its box on both sides (the nearer
   * side), and above and below it, in box heights (0: not measured). A bib is a sheet: fixture bibs
   * <= 0.48 to the sides and <= 0.27 above and below; a shirt's fabric goes on to the torso's edges.
   */
  groundWidth: number;
  groundHeight: number;
}

/** Measures a number's box (one that passed the token rules: `digits` is its one number) among the photo's other boxes and people. */
export function bibEvidence(
  box: TextBox,
  digits: string,
  others: TextBox[] = [],
  people: PersonBox[] = [],
  torso: TorsoRules = DEFAULT_TORSO_RULES,
): BibEvidence {
  const g = box.geometry;
  const chars = box.chars?.length === box.text.length ? box.chars : undefined;
  const digitConfidences = chars ? [...box.text].flatMap((c, i) => (/\d/.test(c) ? [chars[i]] : [])) : [];
  const glyphs = g?.glyphHeights ?? [];
  return {
    weakestChar: digitConfidences.length ? Math.min(...digitConfidences) : box.confidence,
    letters: [...box.text].filter((c) => /\p{L}/u.test(c)).length,
    extraGlyphs: g?.glyphHeights ? glyphs.length - digits.length : 0,
    glyphHeightRatio: glyphs.length ? Math.min(...glyphs) / Math.max(...glyphs) : 1,
    widthPerDigit: g ? g.width / g.height / digits.length : 0.7,
    heightShareOnPerson: g ? heightShareOnPerson(g, others, people, torso) : 1,
    heightPerPerson: g ? heightPerPerson(g, people, torso) : 0.05,
    sameSizeNeighbours: g ? others.filter((o) => o !== box && besideOnItsLine(g, o.geometry)).length : 0,
    groundWidth: g?.groundReach ? Math.min(g.groundReach.left, g.groundReach.right) : 0,
    groundHeight: g?.groundReach ? Math.min(g.groundReach.up, g.groundReach.down) : 0,
  };
}

/** The box's height over the tallest person whose torso holds it (0.05, a typical bib's, on nobody: a close-up). */
function heightPerPerson(g: BoxGeometry, people: PersonBox[], torso: TorsoRules): number {
  const heights = people
    .filter((p) => onATorso(g, [p], torso))
    .map((p) => torsoRegion(p, torso, g.imageWidth / g.imageHeight).personHeight);
  return heights.length ? g.height / g.imageHeight / Math.max(...heights) : 0.05;
}

/** The box's height over the tallest digit-bearing box on a person it lies on (1 on nobody). */
function heightShareOnPerson(g: BoxGeometry, others: TextBox[], people: PersonBox[], torso: TorsoRules): number {
  const mine = people.filter((p) => onATorso(g, [p], torso));
  if (!mine.length) return 1;
  let tallest = g.height;
  for (const o of others) {
    if (o.geometry && /\d/.test(o.text) && mine.some((p) => onATorso(o.geometry!, [p], torso)))
      tallest = Math.max(tallest, o.geometry.height);
  }
  return g.height / tallest;
}

/**
 * Whether `o` is a box of about `g`'s height on its line, less than a box height away to the side.
 * A box lying over `g` (the same print found again in an overlapping person crop) is not beside it.
 */
function besideOnItsLine(g: BoxGeometry, o: BoxGeometry | undefined): boolean {
  if (!o) return false;
  const ratio = o.height / g.height;
  const sameLine = Math.abs(o.y + o.height / 2 - (g.y + g.height / 2)) < 0.35 * g.height;
  const gap = Math.max(o.x - (g.x + g.width), g.x - (o.x + o.width));
  const overlapping = -gap > 0.3 * Math.min(g.width, o.width);
  return ratio > 0.65 && ratio < 1.5 && sameLine && gap < 1.2 * g.height && !overlapping;
}

/** 0 while `value` is at `good` or better, rising linearly to 1 at `bad` (on either side of `good`). */
function ramp(value: number, good: number, bad: number): number {
  return Math.max(0, Math.min(1, (value - good) / (bad - good)));
}

/**
 * How much a number looks like a printed bib, 1 at best: each sign against it takes its share
 * away. Each bound is the true bibs' own range on the dev fixtures with a margin, not a false hit's
 * value (docs/benchmarks.md, "BIB score"):
 * - a doubtful digit (fixture bibs: every digit >= 0.96, but a clean drawn bib's first digit reads
 *   0.87-0.94 at the line's edge: the ramp starts below that);
 * - letters read beside the digits (a stray one is tolerated, as the token rules do); ink blobs
 *   that are no digit (a frame, a letter the recogniser dropped; fixture bibs: at most 1); digits
 *   of unequal height (fixtures >= 0.35);
 *   digits too narrow or too wide for bib print (fixtures 0.45-0.88 of their height; a condensed
 *   font's digits with their spacing are 0.3 of it, and no printed digit is narrower than 0.2);
 * - text of its own size beside it on its line (a word of the same print: `EST. 1987`);
 * - digits too tall for a bib on that person (fixtures <= 0.061 of the person's height);
 * - a much smaller number than other text on the same person (a bib's number is the largest
 *   print on the torso; fixtures >= 0.43: a runner's box also holds the one behind);
 * - a ground that goes on farther than a bib sheet does: above and below (fixtures <= 0.27 of the
 *   number's height: the sheet's edge, its frame or its sponsor lines come first) or to both sides
 *   (fixtures <= 0.48; the margin is wide: a 2-digit number on a plain wide bib has about 0.8 of
 *   sheet each side): the number is printed on something larger than a bib, a shirt or a banner
 *   (ground-reach.ts in the worker measures it).
 */
export function bibScore(e: BibEvidence): number {
  const against =
    ramp(e.weakestChar, 0.85, 0.7) +
    0.15 * Math.min(2, e.letters) +
    (e.extraGlyphs >= 2 ? 0.5 : e.extraGlyphs === 1 ? 0.15 : 0) +
    0.5 * ramp(e.glyphHeightRatio, 0.3, 0.15) +
    ramp(e.widthPerDigit, 0.3, 0.2) +
    ramp(e.widthPerDigit, 1.0, 1.3) +
    0.6 * Math.min(1, e.sameSizeNeighbours) +
    0.5 * ramp(e.heightShareOnPerson, 0.4, 0.2) +
    ramp(e.heightPerPerson, 0.075, 0.1) +
    ramp(e.groundHeight, 0.8, 1.3) +
    ramp(e.groundWidth, 1.3, 2.0);
  return Math.max(0, 1 - against);
}
