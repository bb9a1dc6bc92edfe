import sharp, { OverlayOptions } from 'sharp';
import type { HardPhoto } from './bib-hard-set';

/**
 * Negatives where a person gate cannot help: numbers printed on people. Built from the fixture
 * photos at bench time (nothing stored):
 * - `clothing`: every number the reader accepts on a race photo (the real bibs) covered by a
 *   printed T-shirt design on the same spot: varied fonts, colours, light and dark fabric with
 *   folds, curved text, numbers with words; whatever is still read there is a false hit (the
 *   ground truth keeps only bibs the reader did not accept, which nothing covers).
 * - `crowd`: crops of the face group shots (a crowd, no bibs) with such prints on each detected
 *   torso and two street signs behind.
 * - `behind`: the race photos, bibs kept, with a race clock and sponsor banners behind the runners
 *   (head and shoulder height); ground truth unchanged.
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
  ['#f3f3ef', '#151515'], ['#d9d9d4', '#1b2a55'], ['#f0e04a', '#111111'], ['#a9c8ea', '#0d1b3a'], ['#f6c9d6', '#7a0a2a'],
  ['#1c2333', '#f2f2f2'], ['#0e0e0e', '#e8c547'], ['#a31621', '#ffffff'], ['#1f6b3a', '#f5f5f5'], ['#ffffff', '#c8102e'],
];
const TEXTS = ['23', '7', '88', '1987', '404', '69', '250', '10', 'TEAM 23', 'EST. 1987', 'No 9', 'CLASS OF 98', 'PARIS 75', 'FC 12', 'BROOKLYN 88', '42', '365', '77', '2024', '13'];

/** One T-shirt print, digits `h` pixels tall, on a soft-edged fabric patch with folds. */
export function shirtPrint(h: number, pick: () => number): { svg: string; width: number; height: number } {
  const text = TEXTS[pick() % TEXTS.length];
  const font = FONTS[pick() % FONTS.length];
  const [fabric, ink] = PALETTES[pick() % PALETTES.length];
  const style = pick() % 4; // 0 plain, 1 curved, 2 jersey (outlined, a name above), 3 in a badge
  const w = Math.round(h * (0.75 * text.length + 3));
  const H = Math.round(h * 3.6);
  const cx = w / 2;
  const fold = `<linearGradient id="f" x1="0" y1="0" x2="1" y2="0.3"><stop offset="0" stop-color="#000" stop-opacity="0.3"/><stop offset="0.45" stop-color="#fff" stop-opacity="0.08"/><stop offset="0.7" stop-color="#000" stop-opacity="0.22"/><stop offset="1" stop-color="#000" stop-opacity="0.3"/></linearGradient>`;
  const size = h * 1.35;
  let print: string;
  if (style === 1) {
    print = `<path id="arc" d="M ${h} ${H * 0.72} Q ${cx} ${H * 0.12} ${w - h} ${H * 0.72}" fill="none"/><text font-size="${size}" ${font} fill="${ink}" text-anchor="middle"><textPath href="#arc" startOffset="50%">${text}</textPath></text>`;
  } else if (style === 2) {
    print = `<text x="${cx}" y="${H * 0.3}" font-size="${h * 0.45}" ${FONTS[0]} text-anchor="middle" fill="${ink}">SMITH</text><text x="${cx}" y="${H * 0.78}" font-size="${size * 1.2}" ${font} text-anchor="middle" fill="${ink}" stroke="${fabric === '#ffffff' ? '#222' : '#888'}" stroke-width="${h * 0.05}">${text}</text>`;
  } else if (style === 3) {
    print = `<ellipse cx="${cx}" cy="${H / 2}" rx="${w * 0.42}" ry="${H * 0.36}" fill="none" stroke="${ink}" stroke-width="${h * 0.12}"/><text x="${cx}" y="${H / 2 + size * 0.36}" font-size="${size}" ${font} text-anchor="middle" fill="${ink}">${text}</text>`;
  } else {
    print = `<text x="${cx}" y="${H / 2 + size * 0.36}" font-size="${size}" ${font} text-anchor="middle" fill="${ink}">${text}</text>`;
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${H}"><defs>${fold}<radialGradient id="e"><stop offset="0.75" stop-color="#fff"/><stop offset="1" stop-color="#000"/></radialGradient><mask id="m"><rect width="100%" height="100%" fill="url(#e)"/></mask></defs>
    <g mask="url(#m)"><rect width="100%" height="100%" fill="${fabric}"/>${print}<rect width="100%" height="100%" fill="url(#f)"/></g></svg>`;
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
async function layer(drawing: { svg: string; width: number; height: number }, maxWidth: number, angle: number): Promise<{ input: Buffer; width: number; height: number }> {
  const scale = Math.min(1, maxWidth / drawing.width);
  const width = Math.max(8, Math.round(drawing.width * scale));
  const rendered = await sharp(Buffer.from(drawing.svg)).resize(width).blur(1.1).png().toBuffer();
  const { height = 8 } = await sharp(rendered).metadata();
  const grain = await sharp(seededGrain(width, height, width * 7919 + height), { raw: { width, height, channels: 3 } }).png().toBuffer();
  const alpha = await sharp(rendered).extractChannel('alpha').raw().toBuffer();
  const rgb = await sharp(rendered).removeAlpha().png().toBuffer();
  const noisy = await sharp(rgb).composite([{ input: grain, blend: 'overlay' }]).removeAlpha().raw().toBuffer();
  const grained = await sharp(noisy, { raw: { width, height, channels: 3 } }).joinChannel(alpha, { raw: { width, height, channels: 1 } }).png().toBuffer();
  const input = await sharp(grained).rotate(angle, { background: { r: 0, g: 0, b: 0, alpha: 0 } }).png().toBuffer();
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

/** `photo` (already oriented) with a T-shirt print centred on each spot, covering it. */
export async function printOnSpots(photo: Buffer, spots: Spot[], pick: () => number): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(photo).metadata();
  const layers: OverlayOptions[] = [];
  for (const s of spots) {
    const h = Math.max(10, Math.round(s.height * height * (0.8 + (pick() % 50) / 100)));
    const l = await layer(shirtPrint(h, pick), width * 0.45, (pick() % 11) - 5);
    // wide enough to hide what it covers
    const grow = Math.max(1, (s.width * width * 1.5) / l.width, (s.height * height * 2) / l.height);
    const input = grow > 1 ? await sharp(l.input).resize(Math.round(l.width * grow)).blur(0.8).png().toBuffer() : l.input;
    const lw = Math.round(l.width * Math.max(1, grow));
    const lh = Math.round(l.height * Math.max(1, grow));
    const left = Math.round((s.x + s.width / 2) * width - lw / 2);
    const top = Math.round((s.y + s.height / 2) * height - lh / 2);
    layers.push({ input, left: Math.max(0, Math.min(width - lw, left)), top: Math.max(0, Math.min(height - lh, top)) });
  }
  return sharp(photo).composite(layers).jpeg({ quality: 90 }).toBuffer();
}

/** `photo` with a race clock and two banners behind the runners (head and shoulder height). */
export async function backdropBehind(photo: Buffer, pick: () => number): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(photo).metadata();
  const layers: OverlayOptions[] = [];
  for (let i = 0; i < 3; i++) {
    const h = Math.round(height * (0.025 + (pick() % 100) / 100 * 0.03));
    const l = await layer(backdrop(h, pick), width * 0.3, 0);
    const left = Math.round((width / 3) * i + (pick() % 100) / 100 * Math.max(1, width / 3 - l.width));
    const top = Math.round(height * (0.03 + (pick() % 100) / 100 * 0.22));
    layers.push({ input: l.input, left: Math.max(0, Math.min(width - l.width, left)), top: Math.max(0, Math.min(height - l.height, top)) });
  }
  return sharp(photo).composite(layers).jpeg({ quality: 90 }).toBuffer();
}

export type { HardPhoto };
