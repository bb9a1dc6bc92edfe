import type { BoxGeometry } from './extract';

/** A person found on the photo: box relative to the image (0-1), detector score (0-1). */
export interface PersonBox {
  x: number;
  y: number;
  width: number;
  height: number;
  score: number;
}

/**
 * Where a bib can be inside a person's box, as shares of the box: the torso, with a tolerance.
 * Measured on the 30 fixture bibs (centernet boxes): every bib centre lies at 0.24-0.66 of its
 * runner's width and 0.15-0.65 of the height (a box cut by the photo's bottom edge puts the torso
 * lower); the bounds below leave a margin of about a tenth on each side.
 */
export interface TorsoRules {
  /** Person boxes under this score are not people enough to vouch for a number (fixture runners: >= 0.24). */
  minPersonScore: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
  /** A text box wider than this share of the person is not printed on them (a banner behind, a sign in front). */
  maxWidthShare: number;
  /**
   * A text box taller than this share of the person's height is not printed on them (a sign in front
   * of a spectator far behind). Fixture bib numbers are 3.5-7% of their runner's height.
   */
  maxHeightShare: number;
  /**
   * The height cap is taken on the height the person's width implies when that is more than their box's: a
   * runner filling the frame is seen from the knees or the chest up, and their bib fills more of that box.
   */
  heightCapFromWidth: boolean;
  /**
   * With nobody found on the photo, a number at least this tall (share of the photo's height) is a
   * close-up of a bib (the runner fills the frame, cut off too much for the detector); smaller
   * numbers there are signs, plates and clocks of a scene without people.
   */
  closeUpHeight: number;
  /**
   * A person's head: the top of their box down to this share of their height (about an eighth of a standing
   * person). A number centred there is not printed on their torso (a banner behind the head); a box cut by the
   * photo's top edge shows no head. 0: off (the torso region's `top` alone).
   */
  headShare: number;
}

export const DEFAULT_TORSO_RULES: TorsoRules = {
  minPersonScore: 0.2,
  left: 0.1,
  right: 0.9,
  top: 0.08,
  bottom: 0.78,
  maxWidthShare: 0.8,
  maxHeightShare: 0.12,
  heightCapFromWidth: true,
  closeUpHeight: 0.08,
  headShare: 0.12,
};

/** A person box whose top is within this share of the photo's height is cut by the top edge: it shows no head. */
const CUT_BY_TOP = 0.02;

/** A runner's whole box is 2.3-3.4 times as tall as wide (fixtures); a box cut by the photo's bottom edge is taken as at least this tall. */
const FULL_HEIGHT_PER_WIDTH = 2.6;

/**
 * The torso region of a person box (relative to the image; `aspect` is the image's width over its
 * height). A box cut by the photo's bottom edge is shorter than the person: its torso is placed on
 * the height the person would have (from the box's width), down to that edge at most.
 */
export function torsoRegion(
  person: PersonBox,
  rules: TorsoRules = DEFAULT_TORSO_RULES,
  aspect = 1.5,
): { x0: number; x1: number; y0: number; y1: number; personHeight: number } {
  const cutAtBottom = person.y + person.height >= 0.98;
  const height = cutAtBottom ? Math.max(person.height, FULL_HEIGHT_PER_WIDTH * person.width * aspect) : person.height;
  return {
    personHeight: height,
    x0: person.x + rules.left * person.width,
    x1: person.x + rules.right * person.width,
    y0: person.y + rules.top * height,
    y1: Math.min(1, person.y + rules.bottom * height),
  };
}

/**
 * Whether a text box lies on someone's torso: its centre inside the torso region of a person it is not too large
 * for, below their head.
 */
export function onATorso(
  box: Pick<BoxGeometry, 'x' | 'y' | 'width' | 'height' | 'imageWidth' | 'imageHeight'>,
  persons: PersonBox[],
  rules: TorsoRules = DEFAULT_TORSO_RULES,
): boolean {
  const cx = (box.x + box.width / 2) / box.imageWidth;
  const cy = (box.y + box.height / 2) / box.imageHeight;
  const width = box.width / box.imageWidth;
  return persons.some((person) => {
    if (person.score < rules.minPersonScore || width > rules.maxWidthShare * person.width) return false;
    const aspect = box.imageWidth / box.imageHeight;
    const torso = torsoRegion(person, rules, aspect);
    const tall = rules.heightCapFromWidth
      ? Math.max(torso.personHeight, FULL_HEIGHT_PER_WIDTH * person.width * aspect)
      : torso.personHeight;
    if (box.height / box.imageHeight > rules.maxHeightShare * tall) return false;
    if (person.y > CUT_BY_TOP && cy < person.y + rules.headShare * torso.personHeight) return false;
    return cx >= torso.x0 && cx <= torso.x1 && cy >= torso.y0 && cy <= torso.y1;
  });
}

/**
 * Where a bib can be: on someone's torso (`onATorso`) or, on a photo where nobody is found, as a
 * close-up (a number filling the frame).
 */
export function placedLikeABib(
  box: Pick<BoxGeometry, 'x' | 'y' | 'width' | 'height' | 'imageWidth' | 'imageHeight'>,
  persons: PersonBox[],
  rules: TorsoRules = DEFAULT_TORSO_RULES,
): boolean {
  if (!persons.some((p) => p.score >= rules.minPersonScore)) return box.height / box.imageHeight >= rules.closeUpHeight;
  return onATorso(box, persons, rules);
}

/** Two person boxes overlapping this much (intersection over union) are one runner found twice. */
const SAME_RUNNER_OVERLAP = 0.7;

/** A number's box on the photo. */
type NumberBox = Pick<BoxGeometry, 'x' | 'y' | 'width' | 'height' | 'imageWidth' | 'imageHeight'>;

/** A number up to this many times the height of a runner's own bib is no nearer than it (a bib's size varies a little). */
const NO_NEARER = 1.3;

/**
 * For each number (its box on the photo), whether it rests on one runner's torso beside a more central number there,
 * on its line and no larger than it: a runner wears one bib, centred. The other belongs to someone behind, seen past
 * the runner's body at the height of their bib (that person not found on their own), and that body may hide its first
 * or last digits (issue 25 item 3: RBNR set1_74's 297). A number another runner's torso also holds is left to them; one
 * clearly larger is nearer, not behind; one above or below the runner's bib is seen clear of their body (over a shoulder).
 */
export function besideTheirBib(
  numbers: NumberBox[],
  persons: PersonBox[],
  rules: TorsoRules = DEFAULT_TORSO_RULES,
): boolean[] {
  const offMiddle = (n: NumberBox, r: PersonBox) => Math.abs((n.x + n.width / 2) / n.imageWidth - (r.x + r.width / 2));
  return againstTheirNumber(
    numbers,
    persons,
    rules,
    (on, runner) => on.reduce((a, i) => (offMiddle(numbers[i], runner) < offMiddle(numbers[a], runner) ? i : a)),
    (n, bib) => onTheLineOf(n, bib) && n.height <= NO_NEARER * bib.height,
  );
}

/** A number at most this share of the height of the largest number on a runner's torso is no bib of theirs. */
const SHIRT_PRINT = 0.5;

/**
 * For each number, whether it is print on a runner's clothes, not a bib: on one runner's torso alone, above or below
 * the largest number there, its centre within that number's width, and at most `SHIRT_PRINT` of its height (a race
 * shirt's year: RBNR set1_71's 2000, a quarter of the height of the 560 below it). A runner's bib is the largest number
 * they wear, and their body above and below it hides whatever is behind; a bib of someone behind shows beside it, past
 * the body or over a shoulder (bibs-long prom2's 263, 0.4 of the front bib's height, left of it), and is left.
 */
export function printOnTheirShirt(
  numbers: NumberBox[],
  persons: PersonBox[],
  rules: TorsoRules = DEFAULT_TORSO_RULES,
): boolean[] {
  const centreWithin = (n: NumberBox, bib: NumberBox) =>
    n.x + n.width / 2 >= bib.x && n.x + n.width / 2 <= bib.x + bib.width;
  return againstTheirNumber(
    numbers,
    persons,
    rules,
    (on) => on.reduce((a, i) => (numbers[i].height > numbers[a].height ? i : a)),
    (n, bib) => !onTheLineOf(n, bib) && centreWithin(n, bib) && n.height <= SHIRT_PRINT * bib.height,
  );
}

/**
 * For each number, whether it rests on one runner's torso alone (a number another runner's torso also holds is left to
 * them) and `marks` it against the runner's own number there (`theirs` picks its index among the numbers on their
 * torso). A runner found twice is one runner: the surer box.
 */
function againstTheirNumber(
  numbers: NumberBox[],
  persons: PersonBox[],
  rules: TorsoRules,
  theirs: (on: number[], runner: PersonBox) => number,
  marks: (n: NumberBox, theirs: NumberBox) => boolean,
): boolean[] {
  const runners: PersonBox[] = [];
  for (const p of [...persons].sort((a, b) => b.score - a.score)) {
    if (p.score >= rules.minPersonScore && !runners.some((r) => overlap(r, p) > SAME_RUNNER_OVERLAP)) runners.push(p);
  }
  const holders = numbers.map((n) => runners.filter((r) => onATorso(n, [r], rules)));
  const marked = numbers.map(() => false);
  for (const runner of runners) {
    const on = numbers.map((_, i) => i).filter((i) => holders[i].includes(runner));
    if (on.length < 2) continue;
    const own = theirs(on, runner);
    for (const i of on) if (i !== own && holders[i].length === 1 && marks(numbers[i], numbers[own])) marked[i] = true;
  }
  return marked;
}

/** Whether two numbers' boxes share rows (one line of print, or two sheets side by side). */
function onTheLineOf(n: Pick<BoxGeometry, 'y' | 'height'>, other: Pick<BoxGeometry, 'y' | 'height'>): boolean {
  return n.y < other.y + other.height && other.y < n.y + n.height;
}

/** Intersection over union of two person boxes. */
function overlap(a: PersonBox, b: PersonBox): number {
  const w = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
  const h = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
  const both = w * h;
  return both / (a.width * a.height + b.width * b.height - both);
}
