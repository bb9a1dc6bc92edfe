import sharp, { OverlayOptions } from 'sharp';
import type { HardPhoto } from './bib-hard-set';

/**
 * Negatives where a person gate cannot help: numbers printed on people. Built from the fixture
 * photos at bench time (nothing stored):
 * - `clothing`: every number the reader accepts on a race photo (the real bibs) covered by a
 *   T-shirt over its runner's torso with a print on the same spot: varied fonts, colours, light
 *   and dark fabric with folds, curved text, numbers with words, a name above, a ring around;
 *   whatever is still read there is a false hit (the ground truth keeps only bibs the reader did
 *   not accept, which nothing covers).
 * - `crowd`: crops of the face group shots (a crowd, no bibs) with such prints on each detected
 *   torso and two street signs behind.
 * - `behind`: the race photos, bibs kept, with a race clock and sponsor banners behind the runners
 *   (head and shoulder height, hidden by the runners' bodies and bibs); ground truth unchanged.
 */

/** A rectangle relative to the photo (0-1). */
export interface Spot {
  x: number;
  y: number;
  width: number;
  height: number;
}

const FONTS = [
  'font-family="DejaVu Sans" font-weight="bold"',
  'font-family="DejaVu Serif" font-weight="bold"',
  'font-family="DejaVu Sans Mono" font-weight="bold"',
  'font-family="Liberation Sans Narrow" font-weight="bold"',
  'font-family="DejaVu Serif" font-style="italic"',
  'font-family="Liberation Serif" font-weight="bold"',
  'font-family="DejaVu Sans Condensed" font-weight="bold"',
];
/** Fabric and ink: dark ink on light fabric (the hard case), light on dark, colour on colour. */
const PALETTES: Array<[string, string]> = [
  ['#f3f3ef', '#151515'],
  ['#d9d9d4', '#1b2a55'],
  ['#f0e04a', '#111111'],
  ['#a9c8ea', '#0d1b3a'],
  ['#f6c9d6', '#7a0a2a'],
  ['#1c2333', '#f2f2f2'],
  ['#0e0e0e', '#e8c547'],
  ['#a31621', '#ffffff'],
  ['#1f6b3a', '#f5f5f5'],
  ['#ffffff', '#c8102e'],
];
const TEXTS = [
  '23',
  '7',
  '88',
  '1987',
  '404',
  '69',
  '250',
  '10',
  'TEAM 23',
  'EST. 1987',
  'No 9',
  'CLASS OF 98',
  'PARIS 75',
  'FC 12',
  'BROOKLYN 88',
  '42',
  '365',
  '77',
  '2024',
  '13',
];

/** Where to draw a shirt, pixels of the photo. */
interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * A T-shirt with a print: the fabric fills the whole `shirt` (a torso, rounded at the shoulders,
 * with folds across it) and the print, digits `h` pixels tall, is centred at (`cx`, `cy`) on it.
 * A print lies on the fabric, which goes on to the torso's edges: no patch of its own around it
 * (before, each print came on an oval patch about a bib's size: a sticker, which looks like a bib).
 */
export function shirtPrint(
  shirt: Rect,
  cx: number,
  cy: number,
  h: number,
  pick: () => number,
): { svg: string; width: number; height: number } {
  const text = TEXTS[pick() % TEXTS.length];
  const font = FONTS[pick() % FONTS.length];
  const [fabric, ink] = PALETTES[pick() % PALETTES.length];
  const style = pick() % 4; // 0 plain, 1 curved, 2 jersey (outlined, a name above), 3 in a badge
  const w = Math.round(shirt.width);
  const H = Math.round(shirt.height);
  const size = Math.min(h * 1.35, (0.8 * w) / (0.62 * text.length));
  const textWidth = 0.62 * size * text.length;
  const folds = Array.from({ length: 3 }, (_, i) => {
    const at = 0.15 + 0.3 * i + (pick() % 100) / 1000;
    const dark = 0.12 + (pick() % 15) / 100;
    return `<stop offset="${at - 0.08}" stop-color="#000" stop-opacity="0"/><stop offset="${at}" stop-color="#000" stop-opacity="${dark}"/><stop offset="${at + 0.1}" stop-color="#fff" stop-opacity="0.06"/><stop offset="${at + 0.16}" stop-color="#000" stop-opacity="0"/>`;
  }).join('');
  const slant = (pick() % 60) / 100 - 0.3;
  let print: string;
  if (style === 1) {
    print = `<path id="arc" d="M ${cx - textWidth * 0.7} ${cy + size * 0.5} Q ${cx} ${cy - size * 0.9} ${cx + textWidth * 0.7} ${cy + size * 0.5}" fill="none"/><text font-size="${size}" ${font} fill="${ink}" text-anchor="middle"><textPath href="#arc" startOffset="50%">${text}</textPath></text>`;
  } else if (style === 2) {
    print = `<text x="${cx}" y="${cy - size * 0.75}" font-size="${size * 0.4}" ${FONTS[0]} text-anchor="middle" fill="${ink}">SMITH</text><text x="${cx}" y="${cy + size * 0.36}" font-size="${size}" ${font} text-anchor="middle" fill="${ink}" stroke="${fabric === '#ffffff' ? '#222' : '#888'}" stroke-width="${h * 0.05}">${text}</text>`;
  } else if (style === 3) {
    print = `<ellipse cx="${cx}" cy="${cy}" rx="${textWidth * 0.5 + size * 0.6}" ry="${size * 0.9}" fill="none" stroke="${ink}" stroke-width="${h * 0.12}"/><text x="${cx}" y="${cy + size * 0.36}" font-size="${size}" ${font} text-anchor="middle" fill="${ink}">${text}</text>`;
  } else {
    print = `<text x="${cx}" y="${cy + size * 0.36}" font-size="${size}" ${font} text-anchor="middle" fill="${ink}">${text}</text>`;
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${H}"><defs><linearGradient id="f" x1="0" y1="0" x2="1" y2="${slant}">${folds}</linearGradient></defs>
    <path d="M ${w * 0.12} 0 H ${w * 0.88} Q ${w} 0 ${w} ${H * 0.12} V ${H} H 0 V ${H * 0.12} Q 0 0 ${w * 0.12} 0 Z" fill="${fabric}"/>${print}<path d="M ${w * 0.12} 0 H ${w * 0.88} Q ${w} 0 ${w} ${H * 0.12} V ${H} H 0 V ${H * 0.12} Q 0 0 ${w * 0.12} 0 Z" fill="url(#f)"/></svg>`;
  return { svg, width: w, height: H };
}

/** A race clock or a sponsor banner, digits `h` pixels tall (behind the runners). */
function backdrop(h: number, pick: () => number): { svg: string; width: number; height: number } {
  const kind = pick() % 5;
  const [text, ground, ink] = [
    ['0:42:17', '#0b0b0b', '#ff3020'],
    ['1:05:33', '#f4f4f4', '#111111'],
    ['2024', '#ffffff', '#0a2a6a'],
    ['42', '#ffffff', '#c8102e'],
    ['10 KM', '#ffd21a', '#111111'],
  ][kind];
  const w = Math.round(h * (0.8 * text.length + 2.5));
  const H = Math.round(h * 2);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${H}"><rect width="100%" height="100%" fill="${ground}" stroke="#333" stroke-width="${h * 0.08}"/><text x="${w / 2}" y="${H / 2 + h * 0.38}" font-size="${h}" font-family="${kind < 2 ? 'DejaVu Sans Mono' : 'DejaVu Sans'}" font-weight="bold" text-anchor="middle" fill="${ink}">${text}</text></svg>`;
  return { svg, width: w, height: H };
}

/**
 * A drawing as a layer to paste, as a camera would have taken it: softened (a race photo's bib
 * edges spread over 1-2 px) and with sensor grain, so that nothing separates it from the photo's
 * own prints by being sharper or flatter than the photo (a rule must not learn the generator).
 */
async function layer(
  drawing: { svg: string; width: number; height: number },
  maxWidth: number,
  angle: number,
): Promise<{ input: Buffer; width: number; height: number }> {
  const scale = Math.min(1, maxWidth / drawing.width);
  const width = Math.max(8, Math.round(drawing.width * scale));
  const rendered = await sharp(Buffer.from(drawing.svg)).resize(width).blur(1.1).png().toBuffer();
  const { height = 8 } = await sharp(rendered).metadata();
  const grain = await sharp(seededGrain(width, height, width * 7919 + height), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  const alpha = await sharp(rendered).extractChannel('alpha').raw().toBuffer();
  const rgb = await sharp(rendered).removeAlpha().png().toBuffer();
  const noisy = await sharp(rgb)
    .composite([{ input: grain, blend: 'overlay' }])
    .removeAlpha()
    .raw()
    .toBuffer();
  const grained = await sharp(noisy, { raw: { width, height, channels: 3 } })
    .joinChannel(alpha, { raw: { width, height, channels: 1 } })
    .png()
    .toBuffer();
  const input = await sharp(grained)
    .rotate(angle, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer();
  const meta = await sharp(input).metadata();
  return { input, width: meta.width ?? 0, height: meta.height ?? 0 };
}

/** Grey sensor grain around 128 (about sigma 22), the same on every run (sharp's own noise is not seeded). */
function seededGrain(width: number, height: number, seed: number): Buffer {
  const grain = Buffer.alloc(width * height * 3);
  let s = seed >>> 0;
  const uniform = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  for (let i = 0; i < grain.length; i += 3) {
    const v = Math.max(0, Math.min(255, Math.round(128 + 38 * (uniform() + uniform() + uniform() - 1.5))));
    grain[i] = grain[i + 1] = grain[i + 2] = v;
  }
  return grain;
}

/** A person as the detector gives them (relative to the photo). */
export type Person = Spot;

/**
 * The shirt a print at `spot` is on, in pixels: a torso (shoulders to hips, about 1.2 times as tall
 * as wide) as wide as the middle 42% of the person's box (a runner's box holds the swinging arms)
 * or, on nobody found, of a bib-sized number's scale; always wide and tall enough to hide what the
 * spot held (a bib's paper and frame reach about 1.8 times the number's width and 3 times its height).
 */
function shirtFor(spot: Spot, person: Person | undefined, width: number, height: number): Rect {
  const sw = spot.width * width;
  const sh = spot.height * height;
  const w = Math.min(0.6 * width, Math.max(2.2 * sw, 5 * sh, person ? 0.42 * person.width * width : 0));
  const h = Math.min(0.8 * height, Math.max(5 * sh, 1.2 * w));
  return {
    x: (spot.x + spot.width / 2) * width - w / 2,
    y: (spot.y + spot.height / 2) * height - 0.45 * h,
    width: w,
    height: h,
  };
}

/**
 * `photo` (already oriented) with a T-shirt over each spot's person, a print on it centred on the
 * spot (digits about the spot's height): the shirt hides the bib the spot held.
 */
export async function printOnSpots(
  photo: Buffer,
  spots: Array<Spot & { person?: Person }>,
  pick: () => number,
): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(photo).metadata();
  const layers: OverlayOptions[] = [];
  for (const s of spots) {
    const h = Math.max(10, Math.round(s.height * height * (0.8 + (pick() % 50) / 100)));
    const shirt = shirtFor(s, s.person, width, height);
    const cx = (s.x + s.width / 2) * width - shirt.x;
    const cy = (s.y + s.height / 2) * height - shirt.y;
    const l = await layer(shirtPrint(shirt, cx, cy, h, pick), width, (pick() % 7) - 3);
    const left = Math.round(shirt.x + shirt.width / 2 - l.width / 2);
    const top = Math.round(shirt.y + shirt.height / 2 - l.height / 2);
    layers.push({
      input: l.input,
      left: Math.max(0, Math.min(width - l.width, left)),
      top: Math.max(0, Math.min(height - l.height, top)),
    });
  }
  return sharp(photo).composite(layers).jpeg({ quality: 90 }).toBuffer();
}

/**
 * `photo` with a race clock and two banners behind the runners (head and shoulder height). The
 * runners stand in front of them: the middle 60% of each person's box (the body; the box's sides,
 * where the arms swing, may still show the banner) and each bib (`bibs`, with a margin of its
 * height: it is on a body even where the person detector missed it) are put back over them. Before,
 * the boards lay over the runners' heads, chests and bibs: a white board with a number on a chest,
 * which is a bib's look and no banner's.
 */
export async function backdropBehind(
  photo: Buffer,
  pick: () => number,
  people: Person[] = [],
  bibs: Spot[] = [],
): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(photo).metadata();
  const layers: OverlayOptions[] = [];
  for (let i = 0; i < 3; i++) {
    const h = Math.round(height * (0.025 + ((pick() % 100) / 100) * 0.03));
    const l = await layer(backdrop(h, pick), width * 0.3, 0);
    const left = Math.round((width / 3) * i + ((pick() % 100) / 100) * Math.max(1, width / 3 - l.width));
    const top = Math.round(height * (0.03 + ((pick() % 100) / 100) * 0.22));
    layers.push({
      input: l.input,
      left: Math.max(0, Math.min(width - l.width, left)),
      top: Math.max(0, Math.min(height - l.height, top)),
    });
  }
  const bodies = people.map((p) => ({ x: p.x + 0.2 * p.width, y: p.y, width: 0.6 * p.width, height: p.height }));
  const grownBibs = bibs.map((b) => ({
    x: b.x - (b.height * height) / width,
    y: b.y - b.height,
    width: b.width + (2 * b.height * height) / width,
    height: 3 * b.height,
  }));
  for (const r of [...bodies, ...grownBibs]) {
    const left = Math.max(0, Math.round(r.x * width));
    const top = Math.max(0, Math.round(r.y * height));
    const w = Math.min(width - left, Math.round(r.width * width));
    const h = Math.min(height - top, Math.round(r.height * height));
    if (w < 2 || h < 2) continue;
    layers.push({ input: await sharp(photo).extract({ left, top, width: w, height: h }).png().toBuffer(), left, top });
  }
  return sharp(photo).composite(layers).jpeg({ quality: 90 }).toBuffer();
}

export type { HardPhoto };
