import { DEFAULT_TORSO_RULES, PersonBox, torsoRegion, TorsoRules } from '@em/core/media';
import type { Rgba } from './box-geometry';

/** A rectangle of the analysed image, in whole pixels. */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Around each torso, this share of the person's size: the whole bib (its centre is in the torso) and some patch around it. */
const MARGIN = 0.12;

/**
 * Where to look for text when only bibs on torsos count: each person's torso region with a margin,
 * overlapping ones merged (a bib cut by the edge of one crop would be read in part as another number).
 */
export function ocrRegions(people: PersonBox[], width: number, height: number, rules: TorsoRules = DEFAULT_TORSO_RULES): Region[] {
  let rects = people
    .filter((p) => p.score >= rules.minPersonScore)
    .map((p) => {
      const t = torsoRegion(p, rules);
      return { x0: Math.max(0, t.x0 - MARGIN * p.width), x1: Math.min(1, t.x1 + MARGIN * p.width), y0: Math.max(0, t.y0 - MARGIN * p.height), y1: Math.min(1, t.y1 + MARGIN * p.height) };
    });
  for (let merged = true; merged; ) {
    merged = false;
    for (let i = 0; i < rects.length && !merged; i++) {
      for (let j = i + 1; j < rects.length && !merged; j++) {
        const a = rects[i];
        const b = rects[j];
        if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1) {
          rects[i] = { x0: Math.min(a.x0, b.x0), x1: Math.max(a.x1, b.x1), y0: Math.min(a.y0, b.y0), y1: Math.max(a.y1, b.y1) };
          rects = rects.filter((_, k) => k !== j);
          merged = true;
        }
      }
    }
  }
  return rects
    .map((r) => ({ x: Math.floor(r.x0 * width), y: Math.floor(r.y0 * height), width: Math.ceil(r.x1 * width) - Math.floor(r.x0 * width), height: Math.ceil(r.y1 * height) - Math.floor(r.y0 * height) }))
    .filter((r) => r.width >= 16 && r.height >= 16);
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
