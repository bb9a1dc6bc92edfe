import { execFileSync } from 'node:child_process';
import sharp, { OverlayOptions } from 'sharp';

/**
 * Races with 5- and 6-digit bibs, which none of ours has: on a photo of the dev race or RBNR, each labelled bib
 * that the shipped reader read whole and right is covered by a rendered sheet of the same size with a seeded
 * 5- or 6-digit number (the label then), so what is measured is whether a longer number of a real bib's place,
 * size, light and blur is read whole. Rendered fonts are cleaner than worn, creased, pinned sheets: the race shows
 * geometry and length rules, not the recogniser on real print.
 */

/** Where a bib was read whole and right (shares 0-1 of the oriented photo): its number's box. */
export interface SheetPlace {
  photo: string;
  bib: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The shipped reader's whole, right reads on the dev race and RBNR (main at 42dc1ae, read once: a bench dump of
 * the `now` reader); boxes whose ink bounds collapsed (under 8 px high, or digits narrower than 0.35 or wider
 * than 1.2 of their height) left out.
 */
export const SHEET_PLACES: Record<string, SheetPlace[]> = {
  bibs: [
    { photo: 'prom.jpg', bib: '2791', x: 0.807, y: 0.4525, width: 0.0385, height: 0.0235 },
    { photo: 'prom.jpg', bib: '2793', x: 0.6446, y: 0.3138, width: 0.047, height: 0.0256 },
    { photo: 'prom.jpg', bib: '552', x: 0.4708, y: 0.2038, width: 0.0192, height: 0.0128 },
    { photo: 'prom.jpg', bib: '1432', x: 0.4024, y: 0.4194, width: 0.0506, height: 0.0224 },
    { photo: 'prom2.jpg', bib: '251', x: 0.3545, y: 0.3136, width: 0.0356, height: 0.0183 },
    { photo: 'prom2.jpg', bib: '354', x: 0.5278, y: 0.2982, width: 0.0254, height: 0.0197 },
    { photo: 'prom2.jpg', bib: '398', x: 0.687, y: 0.3911, width: 0.0449, height: 0.0329 },
    { photo: 'prom2.jpg', bib: '657', x: 0.1343, y: 0.239, width: 0.0215, height: 0.0161 },
    { photo: 'prom2.jpg', bib: '805', x: 0.0303, y: 0.3787, width: 0.0317, height: 0.0183 },
    { photo: 'prom3.jpg', bib: '7690', x: 0.8701, y: 0.3553, width: 0.0391, height: 0.0278 },
    { photo: 'prom3.jpg', bib: '3268', x: 0.542, y: 0.4664, width: 0.0537, height: 0.0227 },
    { photo: 'prom3.jpg', bib: '541', x: 0.6948, y: 0.3874, width: 0.0366, height: 0.0183 },
    { photo: 'prom4.jpg', bib: '2695', x: 0.7939, y: 0.3797, width: 0.0405, height: 0.0329 },
    { photo: 'prom4.jpg', bib: '5823', x: 0.4565, y: 0.3965, width: 0.0449, height: 0.0278 },
    { photo: 'prom4.jpg', bib: '7738', x: 0.2744, y: 0.305, width: 0.0313, height: 0.0139 },
    { photo: 'prom4.jpg', bib: '4379', x: 0.1099, y: 0.3175, width: 0.0396, height: 0.0198 },
    { photo: 'prom4.jpg', bib: '1580', x: 0.0591, y: 0.2151, width: 0.021, height: 0.0124 },
    { photo: 'prom4.jpg', bib: '1028', x: 0.6812, y: 0.2012, width: 0.0161, height: 0.0117 },
    { photo: 'prom4.jpg', bib: '4306', x: 0.3613, y: 0.1931, width: 0.0229, height: 0.0117 },
    { photo: '0017-IMG_0035.JPG', bib: '54', x: 0.4849, y: 0.3553, width: 0.021, height: 0.0183 },
    { photo: '0017-IMG_0035.JPG', bib: '775', x: 0.6274, y: 0.3333, width: 0.0273, height: 0.0161 },
    { photo: '0017-IMG_0035.JPG', bib: '38', x: 0.7456, y: 0.2946, width: 0.019, height: 0.0168 },
    { photo: '0017-IMG_0035.JPG', bib: '773', x: 0.0928, y: 0.4306, width: 0.041, height: 0.0212 },
    { photo: '0017-IMG_0035.JPG', bib: '69', x: 0.876, y: 0.299, width: 0.0166, height: 0.0154 },
    { photo: '0017-IMG_0035.JPG', bib: '164', x: 0.9487, y: 0.25, width: 0.0234, height: 0.0117 },
    { photo: '0017-IMG_0035.JPG', bib: '46', x: 0.3052, y: 0.3969, width: 0.0215, height: 0.0219 },
    { photo: '0236-IMG_0273.JPG', bib: '7483', x: 0.0894, y: 0.4192, width: 0.0483, height: 0.0256 },
    { photo: '0236-IMG_0273.JPG', bib: '8115', x: 0.5386, y: 0.4031, width: 0.0327, height: 0.019 },
  ],
  rbnr: [
    { photo: 'set1_01.JPG', bib: '3638', x: 0.6153, y: 0.7271, width: 0.1, height: 0.0792 },
    { photo: 'set1_02.JPG', bib: '3637', x: 0.3833, y: 0.3604, width: 0.0514, height: 0.0271 },
    { photo: 'set1_03.JPG', bib: '3719', x: 0.4649, y: 0.5059, width: 0.0585, height: 0.0234 },
    { photo: 'set1_04.JPG', bib: '3719', x: 0.4298, y: 0.4746, width: 0.0877, height: 0.0352 },
    { photo: 'set1_05.JPG', bib: '3531', x: 0.525, y: 0.5708, width: 0.075, height: 0.0167 },
    { photo: 'set1_06.JPG', bib: '3531', x: 0.5229, y: 0.5722, width: 0.0688, height: 0.0194 },
    { photo: 'set1_09.JPG', bib: '184', x: 0.5708, y: 0.6222, width: 0.0854, height: 0.0194 },
    { photo: 'set1_11.JPG', bib: '2605', x: 0.4386, y: 0.5273, width: 0.0906, height: 0.0215 },
    { photo: 'set1_12.JPG', bib: '2605', x: 0.4357, y: 0.5352, width: 0.0848, height: 0.0391 },
    { photo: 'set1_13.JPG', bib: '2605', x: 0.4313, y: 0.4944, width: 0.0833, height: 0.0292 },
    { photo: 'set1_14.JPG', bib: '2605', x: 0.4396, y: 0.4792, width: 0.1021, height: 0.0292 },
    { photo: 'set1_15.JPG', bib: '2605', x: 0.4292, y: 0.4528, width: 0.1, height: 0.0347 },
    { photo: 'set1_18.JPG', bib: '2251', x: 0.4766, y: 0.5801, width: 0.0819, height: 0.0313 },
    { photo: 'set1_20.JPG', bib: '2078', x: 0.4181, y: 0.7285, width: 0.1404, height: 0.0586 },
    { photo: 'set1_21.JPG', bib: '168', x: 0.3772, y: 0.4863, width: 0.1111, height: 0.0293 },
    { photo: 'set1_22.JPG', bib: '822', x: 0.4064, y: 0.6152, width: 0.1053, height: 0.0352 },
    { photo: 'set1_23.JPG', bib: '898', x: 0.5497, y: 0.6777, width: 0.076, height: 0.0156 },
    { photo: 'set1_24.JPG', bib: '3648', x: 0.4561, y: 0.5137, width: 0.1199, height: 0.0508 },
    { photo: 'set1_25.JPG', bib: '869', x: 0.4458, y: 0.5125, width: 0.0979, height: 0.0292 },
    { photo: 'set1_26.JPG', bib: '599', x: 0.4146, y: 0.6014, width: 0.1292, height: 0.0569 },
    { photo: 'set1_27.JPG', bib: '311', x: 0.5042, y: 0.5653, width: 0.1229, height: 0.0667 },
    { photo: 'set1_30.JPG', bib: '858', x: 0.3743, y: 0.502, width: 0.0906, height: 0.0332 },
    { photo: 'set1_31.JPG', bib: '858', x: 0.3083, y: 0.4389, width: 0.0958, height: 0.0458 },
    { photo: 'set1_32.JPG', bib: '3369', x: 0.3521, y: 0.5472, width: 0.1208, height: 0.0347 },
    { photo: 'set1_33.JPG', bib: '3369', x: 0.462, y: 0.4844, width: 0.0906, height: 0.0195 },
    { photo: 'set1_34.JPG', bib: '2874', x: 0.3833, y: 0.4917, width: 0.1229, height: 0.0333 },
    { photo: 'set1_35.JPG', bib: '2874', x: 0.3646, y: 0.6139, width: 0.1083, height: 0.0389 },
    { photo: 'set1_36.JPG', bib: '2475', x: 0.4208, y: 0.3583, width: 0.0625, height: 0.025 },
    { photo: 'set1_37.JPG', bib: '723', x: 0.5542, y: 0.5292, width: 0.0688, height: 0.0194 },
    { photo: 'set1_39.JPG', bib: '976', x: 0.3729, y: 0.7514, width: 0.1896, height: 0.0389 },
    { photo: 'set1_40.JPG', bib: '2287', x: 0.4875, y: 0.5264, width: 0.125, height: 0.0264 },
    { photo: 'set1_41.JPG', bib: '2103', x: 0.5, y: 0.5667, width: 0.0792, height: 0.0319 },
    { photo: 'set1_42.JPG', bib: '400', x: 0.4562, y: 0.4958, width: 0.125, height: 0.0375 },
    { photo: 'set1_43.JPG', bib: '755', x: 0.3979, y: 0.6736, width: 0.1375, height: 0.0458 },
    { photo: 'set1_44.JPG', bib: '2747', x: 0.3521, y: 0.575, width: 0.1167, height: 0.0278 },
    { photo: 'set1_46.JPG', bib: '2649', x: 0.4562, y: 0.4236, width: 0.1229, height: 0.0486 },
    { photo: 'set1_47.JPG', bib: '663', x: 0.3958, y: 0.4639, width: 0.1104, height: 0.0292 },
    { photo: 'set1_48.JPG', bib: '663', x: 0.5042, y: 0.5111, width: 0.0938, height: 0.0306 },
    { photo: 'set1_49.JPG', bib: '80', x: 0.4917, y: 0.4806, width: 0.0563, height: 0.0333 },
    { photo: 'set1_50.JPG', bib: '1777', x: 0.4208, y: 0.4375, width: 0.0833, height: 0.0319 },
    { photo: 'set1_51.JPG', bib: '1777', x: 0.3, y: 0.7014, width: 0.1708, height: 0.0528 },
    { photo: 'set1_52.JPG', bib: '2845', x: 0.3542, y: 0.5278, width: 0.0917, height: 0.0417 },
    { photo: 'set1_56.JPG', bib: '2692', x: 0.3187, y: 0.8097, width: 0.1354, height: 0.0389 },
    { photo: 'set1_57.JPG', bib: '3523', x: 0.2333, y: 0.5833, width: 0.05, height: 0.0229 },
    { photo: 'set1_57.JPG', bib: '3548', x: 0.4722, y: 0.5458, width: 0.05, height: 0.0271 },
    { photo: 'set1_57.JPG', bib: '3521', x: 0.3667, y: 0.4979, width: 0.0458, height: 0.025 },
    { photo: 'set1_57.JPG', bib: '3614', x: 0.6361, y: 0.5583, width: 0.0333, height: 0.025 },
    { photo: 'set1_57.JPG', bib: '3588', x: 0.6931, y: 0.4917, width: 0.05, height: 0.0271 },
    { photo: 'set1_58.JPG', bib: '814', x: 0.5687, y: 0.5708, width: 0.1167, height: 0.0347 },
    { photo: 'set1_59.JPG', bib: '3035', x: 0.4792, y: 0.4153, width: 0.0646, height: 0.0264 },
    { photo: 'set1_60.JPG', bib: '1404', x: 0.5208, y: 0.5208, width: 0.0813, height: 0.0306 },
    { photo: 'set1_61.JPG', bib: '1679', x: 0.4667, y: 0.5458, width: 0.0771, height: 0.0222 },
    { photo: 'set1_62.JPG', bib: '941', x: 0.576, y: 0.5117, width: 0.0936, height: 0.0176 },
    { photo: 'set1_63.JPG', bib: '941', x: 0.5848, y: 0.582, width: 0.0789, height: 0.0195 },
    { photo: 'set1_64.JPG', bib: '435', x: 0.3833, y: 0.4875, width: 0.0938, height: 0.0319 },
    { photo: 'set1_65.JPG', bib: '435', x: 0.4083, y: 0.4903, width: 0.1125, height: 0.0333 },
    { photo: 'set1_66.JPG', bib: '3225', x: 0.5271, y: 0.5139, width: 0.1042, height: 0.0278 },
    { photo: 'set1_67.JPG', bib: '3708', x: 0.4125, y: 0.4764, width: 0.1437, height: 0.0417 },
    { photo: 'set1_68.JPG', bib: '2244', x: 0.3958, y: 0.4944, width: 0.0896, height: 0.0306 },
    { photo: 'set1_70.JPG', bib: '3241', x: 0.4604, y: 0.4694, width: 0.0813, height: 0.0333 },
    { photo: 'set1_72.JPG', bib: '1478', x: 0.4479, y: 0.4472, width: 0.1042, height: 0.0264 },
    { photo: 'set1_73.JPG', bib: '3633', x: 0.4152, y: 0.4043, width: 0.1053, height: 0.0371 },
    { photo: 'set1_74.JPG', bib: '341', x: 0.4167, y: 0.4444, width: 0.1396, height: 0.0347 },
    { photo: 'set1_75.JPG', bib: '1676', x: 0.5125, y: 0.4917, width: 0.1208, height: 0.0403 },
    { photo: 'set1_76.JPG', bib: '3621', x: 0.3646, y: 0.5194, width: 0.1125, height: 0.0389 },
    { photo: 'set1_77.JPG', bib: '847', x: 0.076, y: 0.8359, width: 0.3129, height: 0.0859 },
    { photo: 'set1_78.JPG', bib: '58', x: 0.3304, y: 0.7871, width: 0.1082, height: 0.0762 },
    { photo: 'set1_79.JPG', bib: '3331', x: 0.3567, y: 0.8184, width: 0.1579, height: 0.0527 },
    { photo: 'set1_80.JPG', bib: '3638', x: 0.3304, y: 0.5215, width: 0.1345, height: 0.0332 },
    { photo: 'set1_81.JPG', bib: '3638', x: 0.4883, y: 0.4609, width: 0.114, height: 0.0391 },
    { photo: 'set1_82.JPG', bib: '1183', x: 0.1023, y: 0.5684, width: 0.0994, height: 0.0391 },
    { photo: 'set1_82.JPG', bib: '847', x: 0.5906, y: 0.5332, width: 0.0731, height: 0.0273 },
    { photo: 'set1_82.JPG', bib: '168', x: 0.348, y: 0.5215, width: 0.0994, height: 0.0371 },
    { photo: 'set1_83.JPG', bib: '168', x: 0.6458, y: 0.447, width: 0.0431, height: 0.0353 },
    { photo: 'set1_83.JPG', bib: '3655', x: 0.9139, y: 0.4304, width: 0.05, height: 0.0353 },
    { photo: 'set1_84.JPG', bib: '48', x: 0.4636, y: 0.6042, width: 0.0707, height: 0.0361 },
    { photo: 'set1_87.JPG', bib: '1442', x: 0.5468, y: 0.5792, width: 0.0811, height: 0.0222 },
    { photo: 'set1_89.JPG', bib: '1703', x: 0.6258, y: 0.5639, width: 0.0541, height: 0.025 },
    { photo: 'set1_90.JPG', bib: '2908', x: 0.5509, y: 0.5556, width: 0.0686, height: 0.0264 },
    { photo: 'set1_92.JPG', bib: '3276', x: 0.6154, y: 0.6111, width: 0.0541, height: 0.0139 },
  ],
};

/** A rectangle in pixels of the oriented photo. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Bold sans fonts a bib is printed in; those fontconfig knows are used (none: the races are skipped). */
const BIB_FONTS = [
  { family: 'DejaVu Sans', stretch: 'normal' },
  { family: 'DejaVu Sans', stretch: 'condensed' },
  { family: 'Liberation Sans', stretch: 'normal' },
  { family: 'Liberation Sans Narrow', stretch: 'normal' },
];

export type BibFont = (typeof BIB_FONTS)[number];

/** The bold bib fonts installed (`fc-list`), in BIB_FONTS' order. */
export function installedBibFonts(): BibFont[] {
  let faces: string[];
  try {
    faces = execFileSync('fc-list', [':style=Bold', 'family', 'style'], { encoding: 'utf8' }).split('\n');
  } catch {
    return [];
  }
  return BIB_FONTS.filter((f) =>
    faces.some((line) => {
      const families = line.split(':')[0].split(',');
      const style = line.split('style=')[1] ?? '';
      if (!families.includes(f.family)) return false;
      return f.stretch === 'condensed' ? /Condensed Bold/.test(style) : /^Bold\b|,Bold\b/.test(style);
    }),
  );
}

/** A seeded random stream (mulberry32): every run generates the same race. */
export function seededRandom(seed: string): () => number {
  let a = [...seed].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 2654435761) >>> 0, 1779033703);
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Text rendered large and cut to its ink, so that it can be scaled to a digit height in pixels. */
async function inkOf(
  text: string,
  font: BibFont,
  fill: string,
): Promise<{ png: Buffer; width: number; height: number }> {
  const size = 160;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size * text.length + size}" height="${size * 2}">
<text x="${size / 2}" y="${size * 1.4}" font-family="${font.family}" font-weight="bold" font-stretch="${font.stretch}"
 font-size="${size}" fill="${fill}">${escapeXml(text)}</text></svg>`;
  const { data, info } = await sharp(Buffer.from(svg))
    .trim({ threshold: 1 })
    .png()
    .toBuffer({ resolveWithObject: true });
  return { png: data, width: info.width, height: info.height };
}

const SPONSOR_LINES = ['CITY MARATHON 2026', 'RUN FOR LIFE', 'HALF MARATHON', 'SPORT  ENERGY', '10K ROAD RACE'];

interface Sheet {
  number: string;
  font: BibFont;
  yellow: boolean;
  red: boolean;
  sponsor: 'above' | 'below' | null;
  degrees: number;
  blur: number;
}

/**
 * One sheet over a read bib: digits as tall as the read's box (smaller when the longer number would be more
 * than 1.5 times the old number's width or 3 digit heights: a sheet fits a torso, a 6-digit bib is printed
 * smaller; not with BENCH_BIB_LONG_WIDE), the sheet 1.2 times the number's width and twice its height, in the light of the paper it covers.
 */
async function renderSheet(
  photo: { width: number; height: number; raw: Buffer },
  place: SheetPlace,
  sheet: Sheet,
): Promise<{ png: Buffer; left: number; top: number; number: Box } | null> {
  const oldWidth = place.width * photo.width;
  let digitHeight = place.height * photo.height;
  const paper = paperLight(photo, place);
  const shade = (rgb: [number, number, number]) =>
    `rgb(${rgb.map((c) => Math.round(Math.min(255, c * paper))).join(',')})`;
  const ink = sheet.red ? shade([200, 24, 40]) : shade([25, 25, 30]);
  const digits = await inkOf(sheet.number, sheet.font, ink);
  let numberWidth = (digits.width / digits.height) * digitHeight;
  const widest = Math.max(1.5 * oldWidth, 3 * digitHeight);
  // BENCH_BIB_LONG_WIDE=1: every number at the read's digit height, however wide its sheet grows.
  if (numberWidth > widest && !process.env.BENCH_BIB_LONG_WIDE) {
    digitHeight *= widest / numberWidth;
    numberWidth = widest;
  }
  const sheetWidth = Math.round(Math.max(1.2 * numberWidth, numberWidth + 0.5 * digitHeight));
  const sheetHeight = Math.round(2 * digitHeight);
  const ground = sheet.yellow ? shade([246, 214, 40]) : shade([244, 244, 238]);
  const layers: OverlayOptions[] = [];
  const number = await sharp(digits.png)
    .resize({ width: Math.max(1, Math.round(numberWidth)), height: Math.max(1, Math.round(digitHeight)), fit: 'fill' })
    .toBuffer();
  const numberTop = Math.round(
    (sheetHeight - digitHeight) / 2 + (sheet.sponsor === 'above' ? 0.12 : sheet.sponsor ? -0.12 : 0) * digitHeight,
  );
  layers.push({ input: number, left: Math.round((sheetWidth - numberWidth) / 2), top: numberTop });
  if (sheet.sponsor) {
    const line = SPONSOR_LINES[sheet.number.charCodeAt(1) % SPONSOR_LINES.length];
    const small = await inkOf(line, sheet.font, ink);
    const lineHeight = Math.max(2, Math.round(0.2 * digitHeight));
    const lineWidth = Math.min(Math.round((small.width / small.height) * lineHeight), Math.round(0.9 * sheetWidth));
    const top =
      sheet.sponsor === 'above'
        ? Math.round(0.12 * digitHeight)
        : Math.round(sheetHeight - 0.12 * digitHeight - lineHeight);
    layers.push({
      input: await sharp(small.png)
        .resize({ width: Math.max(1, lineWidth), height: lineHeight, fit: 'fill' })
        .toBuffer(),
      left: Math.round((sheetWidth - lineWidth) / 2),
      top,
    });
  }
  const corner = Math.round(0.1 * digitHeight);
  const base = `<svg xmlns="http://www.w3.org/2000/svg" width="${sheetWidth}" height="${sheetHeight}"><rect width="${sheetWidth}" height="${sheetHeight}" rx="${corner}" fill="${ground}"/></svg>`;
  const flat = await sharp(Buffer.from(base)).composite(layers).png().toBuffer();
  const turned = await sharp(flat)
    .rotate(sheet.degrees, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .blur(sheet.blur)
    .png()
    .toBuffer({ resolveWithObject: true });
  const centreX = (place.x + place.width / 2) * photo.width;
  const centreY = (place.y + place.height / 2) * photo.height;
  const left = Math.round(centreX - turned.info.width / 2);
  const top = Math.round(centreY - turned.info.height / 2);
  // A sheet the frame would cut is not placed: its number could not be read whole (the reader drops it as partial).
  const inside = digitHeight / 2;
  if (
    left < inside ||
    top < 0 ||
    left + turned.info.width > photo.width - inside ||
    top + turned.info.height > photo.height
  )
    return null;
  const numberBox = {
    x: centreX - numberWidth / 2,
    y: centreY - digitHeight / 2,
    width: numberWidth,
    height: digitHeight,
  };
  return { png: turned.data, left, top, number: numberBox };
}

/** The light on the paper around a bib: its 85th percentile luminance over a white sheet's (0.45-1.05). */
function paperLight(photo: { width: number; height: number; raw: Buffer }, place: SheetPlace): number {
  const x0 = Math.max(0, Math.floor((place.x - place.width * 0.2) * photo.width));
  const x1 = Math.min(photo.width, Math.ceil((place.x + place.width * 1.2) * photo.width));
  const y0 = Math.max(0, Math.floor((place.y - place.height * 0.4) * photo.height));
  const y1 = Math.min(photo.height, Math.ceil((place.y + place.height * 1.4) * photo.height));
  const values: number[] = [];
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) values.push(photo.raw[y * photo.width + x]);
  values.sort((a, b) => a - b);
  const p85 = values.length ? values[Math.floor(values.length * 0.85)] : 235;
  return Math.min(1.05, Math.max(0.45, p85 / 235));
}

/**
 * The photo with each of its places covered by a longer number; labels: the photo's other bibs and the new
 * numbers. Every second photo with two places gives its second the first four digits of its first: alone, a
 * 4-digit bib of a race of 4- and 5-digit bibs (1026 beside 10264), or followed by others (10268 beside 10264).
 */
export async function withLongerBibs(
  name: string,
  file: Buffer,
  labels: Set<string>,
  places: SheetPlace[],
  fonts: BibFont[],
  quality: number,
  width?: number,
): Promise<{ file: Buffer; bibs: Set<string>; placed: Array<{ bib: string; number: string; box: Box }> }> {
  const random = seededRandom(name);
  const oriented = await sharp(file).rotate().toBuffer();
  const { data: raw, info } = await sharp(oriented).greyscale().raw().toBuffer({ resolveWithObject: true });
  const photo = { width: info.width, height: info.height, raw };
  const bibs = new Set(labels);
  const placed: Array<{ bib: string; number: string; box: Box }> = [];
  const overlays: OverlayOptions[] = [];
  const numbers: string[] = [];
  for (const place of places) {
    const length = random() < 0.6 ? 5 : 6;
    let number = String(Math.floor(10 ** (length - 1) + random() * 9 * 10 ** (length - 1)));
    if (numbers.length === 1 && random() < 0.5)
      number =
        random() < 0.5
          ? numbers[0].slice(0, 4)
          : numbers[0].slice(0, 4) + String(Math.floor(random() * 10 ** (length - 4))).padStart(length - 4, '0');
    if (numbers.includes(number)) number = number.slice(0, -1) + String((Number(number.slice(-1)) + 1) % 10);
    const sheet: Sheet = {
      number,
      font: fonts[Math.floor(random() * fonts.length)],
      yellow: random() < 0.4,
      red: random() < 0.4,
      sponsor: random() < 0.5 ? null : random() < 0.5 ? 'above' : 'below',
      degrees: (random() * 2 - 1) * 4,
      blur: 0.5 + random() * 0.5,
    };
    const rendered = await renderSheet(photo, place, sheet);
    if (!rendered) continue;
    numbers.push(number);
    bibs.delete(place.bib);
    bibs.add(number);
    placed.push({ bib: place.bib, number, box: rendered.number });
    overlays.push({ input: rendered.png, left: rendered.left, top: rendered.top });
  }
  let image = sharp(oriented).composite(overlays);
  if (width) image = sharp(await image.toBuffer()).resize({ width, withoutEnlargement: true });
  return { file: await image.jpeg({ quality }).toBuffer(), bibs, placed };
}
