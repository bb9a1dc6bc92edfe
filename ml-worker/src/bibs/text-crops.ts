import { DEFAULT_TORSO_RULES, PersonBox, torsoRegion, TorsoRules } from './torso-gate';
import type { Rgba } from './box-geometry';

/** A rectangle of the analysed image, in whole pixels. */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Where text detection runs, and at what scale of the analysed image's pixels. */
export interface TextCrop extends Region {
  scale: number;
  /**
   * The crop holds someone in front (at least `enlargeShare` of the tallest person's height), or nobody was found and
   * it is the whole frame: the later looks (`largerScale`, `tiltedLook`) look only there. Absent: in front.
   */
  front?: boolean;
}

export interface TextCropOptions {
  /**
   * Height (pixels the detector sees) a bib's text box should have. Measured on the fixture bibs,
   * one person crop at a time: every bib is found down to 30 px, some are lost at 20-23 px.
   */
  textHeight: number;
  /**
   * A bib's text box height as a share of its runner's height, the smallest to expect: the
   * fixture bibs are 0.033-0.074 (the detector's boxes, on CenterNet people).
   */
  bibShare: number;
  minScale: number;
  /** Above 1 a small runner is enlarged for the detector (costs the square): a bib 10 px high on a small photo is found at 3. */
  maxScale: number;
  /**
   * Only people at least this share of the tallest person's height are enlarged (the front of the
   * photo, where the photographer aimed); people farther back are read at most at the photo's own
   * pixels, as their bibs are at best small and each enlarged crop costs the detector a runner's worth. The
   * reader's later looks (a larger scale, a tilted view) take the people in front from here too (`TextCrop.front`).
   */
  enlargeShare: number;
  /**
   * People behind (under `enlargeShare`) are enlarged, up to `maxScale`, until the bib their height implies
   * reaches this height: the photo's own pixels are no size of a bib (a small photo's runner behind carries a
   * bib of a few pixels that the same runner on a large photo shows legibly). 0: at most the photo's pixels.
   */
  behindTextHeight: number;
  /**
   * Who stands behind is measured against the tallest person, and a box cut by the photo's bottom edge is as tall as
   * its width implies; a box holding most of another trusted person's box at most half its width spans people side
   * by side (its width is theirs together), so it counts by its own box height, the one height it surely has.
   */
  groupsByOwnHeight: boolean;
  /**
   * Around each torso region, this share of the person's width (and height), so that a bib whose
   * centre the gate accepts stays whole in the crop: half the widest bib (a third of the person's
   * width) and half the tallest text box the gate accepts (TorsoRules.maxHeightShare), with slack.
   */
  marginX: number;
  marginY: number;
}

export const DEFAULT_TEXT_CROP_OPTIONS: TextCropOptions = {
  textHeight: 30,
  bibShare: 0.035,
  minScale: 0.25,
  maxScale: 3,
  enlargeShare: 0.5,
  behindTextHeight: 15,
  groupsByOwnHeight: true,
  marginX: 0.15,
  marginY: 0.09,
};

interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  scale: number;
  front: boolean;
}

/** What the detector pays for a rectangle: its pixels at its scale. */
const cost = (r: Rect) => (r.x1 - r.x0) * (r.y1 - r.y0) * r.scale ** 2;
const overlap = (a: Rect, b: Rect) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
const clampScale = (s: number, o: TextCropOptions, max = o.maxScale) => Math.min(max, Math.max(o.minScale, s));

/**
 * Overlapping crops merged, at the larger of their scales, when the merged crop costs the detector no
 * more than the two apart.
 */
function mergeCrops(crops: Rect[]): Rect[] {
  let rects = [...crops];
  for (let merged = true; merged;) {
    merged = false;
    for (let i = 0; i < rects.length && !merged; i++) {
      for (let j = i + 1; j < rects.length && !merged; j++) {
        const a = rects[i];
        const b = rects[j];
        if (!overlap(a, b)) continue;
        const union = {
          x0: Math.min(a.x0, b.x0),
          y0: Math.min(a.y0, b.y0),
          x1: Math.max(a.x1, b.x1),
          y1: Math.max(a.y1, b.y1),
          scale: Math.max(a.scale, b.scale),
          front: a.front || b.front,
        };
        if (cost(union) > cost(a) + cost(b)) continue;
        rects[i] = union;
        rects = rects.filter((_, k) => k !== j);
        merged = true;
      }
    }
  }
  return rects;
}

const wholePixels = (rects: Rect[]): TextCrop[] =>
  rects.map((r) => {
    const x = Math.floor(r.x0);
    const y = Math.floor(r.y0);
    return { x, y, width: Math.ceil(r.x1) - x, height: Math.ceil(r.y1) - y, scale: r.scale, front: r.front };
  });

const bigEnough = (r: Rect) => r.x1 - r.x0 >= 16 && r.y1 - r.y0 >= 16;

/** A person's torso region with the crop margins, in pixels of the image, at `scale`. */
function torsoRect(
  p: PersonBox,
  width: number,
  height: number,
  torso: TorsoRules,
  options: TextCropOptions,
  scale: number,
  front: boolean,
): Rect {
  const t = torsoRegion(p, torso, width / height);
  return {
    front,
    x0: Math.max(0, (t.x0 - options.marginX * p.width) * width),
    x1: Math.min(width, (t.x1 + options.marginX * p.width) * width),
    y0: Math.max(0, (t.y0 - options.marginY * t.personHeight) * height),
    y1: Math.min(height, (t.y1 + options.marginY * t.personHeight) * height),
    scale,
  };
}

/** Share of `inner`'s box inside `outer`'s. */
function insideShare(inner: PersonBox, outer: PersonBox): number {
  const w = Math.min(inner.x + inner.width, outer.x + outer.width) - Math.max(inner.x, outer.x);
  const h = Math.min(inner.y + inner.height, outer.y + outer.height) - Math.max(inner.y, outer.y);
  return (Math.max(0, w) * Math.max(0, h)) / (inner.width * inner.height || 1);
}

/** Most of a box inside another: a person the other's box holds. */
const HELD_SHARE = 0.8;

/** The height of the tallest trusted person, the yardstick of who stands behind (see `groupsByOwnHeight`). */
function tallestHeight(trusted: PersonBox[], torso: TorsoRules, options: TextCropOptions, aspect: number): number {
  const spansPeople = (p: PersonBox) =>
    trusted.some((q) => q !== p && q.width <= p.width / 2 && insideShare(q, p) >= HELD_SHARE);
  const heightOf = (p: PersonBox) =>
    options.groupsByOwnHeight && spansPeople(p) ? p.height : torsoRegion(p, torso, aspect).personHeight;
  return Math.max(0, ...trusted.map(heightOf));
}

/** Who stands in front: people at least `enlargeShare` of the tallest trusted person's height (`tallestHeight`). */
function standsInFront(
  p: PersonBox,
  trusted: PersonBox[],
  torso: TorsoRules,
  options: TextCropOptions,
  aspect: number,
) {
  return (
    torsoRegion(p, torso, aspect).personHeight >= options.enlargeShare * tallestHeight(trusted, torso, options, aspect)
  );
}

/**
 * The scale that brings the bib a person's height implies to `textHeight`, enlarged up to `maxScale`
 * only for the people in front (`standsInFront`; the others at most 1, or as far as brings their implied bib to
 * `behindTextHeight`).
 */
function firstScale(
  p: PersonBox,
  trusted: PersonBox[],
  height: number,
  torso: TorsoRules,
  options: TextCropOptions,
  aspect: number,
): number {
  const impliedBib = options.bibShare * torsoRegion(p, torso, aspect).personHeight * height;
  if (standsInFront(p, trusted, torso, options, aspect)) return clampScale(options.textHeight / impliedBib, options);
  const ownPixels = clampScale(options.textHeight / impliedBib, options, Math.min(1, options.maxScale));
  return Math.max(ownPixels, clampScale(options.behindTextHeight / impliedBib, options));
}

/**
 * Where to look for bibs on a `width` x `height` image, given the people found on it: each
 * trusted person's torso region with a margin (the torso gate accepts nothing else), at the scale
 * that brings the bib the person's height implies to `textHeight` (a near runner is read
 * smaller, a far one at full resolution). Overlapping crops are merged, at the larger of their
 * scales, when the merged crop costs the detector no more than the two apart; crops that still
 * overlap each see whole the bibs of their own people (see `touchesInnerEdge`). With nobody on
 * the photo, the whole frame at the scale of a close-up bib (the only text the gate then accepts).
 */
export function planTextCrops(
  people: PersonBox[],
  width: number,
  height: number,
  torso: TorsoRules = DEFAULT_TORSO_RULES,
  options: TextCropOptions = DEFAULT_TEXT_CROP_OPTIONS,
): TextCrop[] {
  const aspect = width / height;
  const trusted = people.filter((p) => p.score >= torso.minPersonScore);
  const rects: Rect[] = trusted
    .map((p) =>
      torsoRect(
        p,
        width,
        height,
        torso,
        options,
        firstScale(p, trusted, height, torso, options, aspect),
        standsInFront(p, trusted, torso, options, aspect),
      ),
    )
    .filter(bigEnough);
  if (!rects.length) {
    const scale = clampScale(options.textHeight / (torso.closeUpHeight * height), options);
    return [{ x: 0, y: 0, width, height, scale, front: true }];
  }
  return wholePixels(mergeCrops(rects));
}

/**
 * Where to look again, at the largest scale, after a first pass (`planTextCrops`) read no number on
 * some people: each trusted person with no number on their torso (`hasNumber`), seen by the first pass
 * under `maxScale` (too small, or not enlarged as they stood behind), whose implied bib is under
 * `textHeight` at the photo's own pixels and at least `textHeight` / (2 x `maxScale`) pixels (a bib up to
 * twice the implied one then reaches `textHeight`; smaller people carry nothing to read). Near people,
 * whose bibs the first pass saw at full size, are not looked at again: where it costs most, a second
 * look would find least.
 */
export function planSecondLook(
  people: PersonBox[],
  hasNumber: (person: PersonBox) => boolean,
  width: number,
  height: number,
  torso: TorsoRules = DEFAULT_TORSO_RULES,
  options: TextCropOptions = DEFAULT_TEXT_CROP_OPTIONS,
): TextCrop[] {
  const aspect = width / height;
  const trusted = people.filter((p) => p.score >= torso.minPersonScore);
  const rects = trusted
    .filter((p) => !hasNumber(p) && firstScale(p, trusted, height, torso, options, aspect) < options.maxScale)
    .filter((p) => {
      const impliedBib = options.bibShare * torsoRegion(p, torso, aspect).personHeight * height;
      return impliedBib < options.textHeight && impliedBib >= options.textHeight / (2 * options.maxScale);
    })
    .map((p) =>
      torsoRect(p, width, height, torso, options, options.maxScale, standsInFront(p, trusted, torso, options, aspect)),
    )
    .filter(bigEnough);
  return wholePixels(mergeCrops(rects));
}

/**
 * Whether a text box (corners in image pixels) reaches an edge of its crop that is not an edge of
 * the image: text cut there is part of a bib that a neighbouring crop sees whole.
 */
export function touchesInnerEdge(
  corners: number[][],
  crop: Region,
  width: number,
  height: number,
  tolerance = 1,
): boolean {
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  return (
    (crop.x > 0 && Math.min(...xs) <= crop.x + tolerance) ||
    (crop.y > 0 && Math.min(...ys) <= crop.y + tolerance) ||
    (crop.x + crop.width < width && Math.max(...xs) >= crop.x + crop.width - tolerance) ||
    (crop.y + crop.height < height && Math.max(...ys) >= crop.y + crop.height - tolerance)
  );
}

/** A copy of a rectangle of RGBA pixels. */
export function cropRgba(image: Rgba, region: Region): Rgba {
  const data = Buffer.alloc(region.width * region.height * 4);
  const src = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
  for (let row = 0; row < region.height; row++) {
    const start = ((region.y + row) * image.width + region.x) * 4;
    src.copy(data, row * region.width * 4, start, start + region.width * 4);
  }
  return { data, width: region.width, height: region.height };
}

/** The axis-aligned bounds of a text line's corners. */
export interface Bounds {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export function cornerBounds(corners: number[][]): Bounds {
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
}

/** Intersection over union of two bounds (0 when either is empty). */
export function boundsIou(a: Bounds, b: Bounds): number {
  const area = (r: Bounds) => (r.x1 - r.x0) * (r.y1 - r.y0);
  const inter =
    Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
  return inter / (area(a) + area(b) - inter || 1);
}

/** A text line found in a crop: its corners in image pixels, and the crop it was found in. */
export interface FoundText {
  corners: number[][];
  crop: Region;
}

/**
 * Each printed text once: where two crops overlap, text inside both is found twice (each
 * recognition costs as much as the other). Boxes from different crops whose bounds overlap by more
 * than `minIou` of their union are the same text; the one read is the farthest from an inner edge
 * of its crop (that crop sees most around it), then the larger, then the first found. The kept
 * boxes stay in the order found.
 */
export function readOnce<T extends FoundText>(found: T[], width: number, height: number, minIou = 0.5): T[] {
  const bounds = found.map(({ corners }) => cornerBounds(corners));
  const area = (i: number) => (bounds[i].x1 - bounds[i].x0) * (bounds[i].y1 - bounds[i].y0);
  const clearance = (i: number) => {
    const { crop } = found[i];
    const b = bounds[i];
    const gaps = [
      crop.x > 0 ? b.x0 - crop.x : Infinity,
      crop.y > 0 ? b.y0 - crop.y : Infinity,
      crop.x + crop.width < width ? crop.x + crop.width - b.x1 : Infinity,
      crop.y + crop.height < height ? crop.y + crop.height - b.y1 : Infinity,
    ];
    return Math.min(...gaps);
  };
  const iou = (i: number, j: number) => boundsIou(bounds[i], bounds[j]);
  const preferred = found.map((_, i) => i).sort((i, j) => clearance(j) - clearance(i) || area(j) - area(i) || i - j);
  const kept: number[] = [];
  for (const i of preferred) if (!kept.some((k) => found[k].crop !== found[i].crop && iou(i, k) > minIou)) kept.push(i);
  return kept.sort((i, j) => i - j).map((i) => found[i]);
}

/**
 * The other crops' views of a line `readOnce` kept: the lines of other crops whose bounds overlap it by more than
 * `minIou` of their union (the same text, seen at another scale), in the order found.
 */
export function otherViews<T extends FoundText>(found: T[], kept: T, minIou = 0.5): T[] {
  const k = cornerBounds(kept.corners);
  return found.filter((f) => f.crop !== kept.crop && boundsIou(cornerBounds(f.corners), k) > minIou);
}
