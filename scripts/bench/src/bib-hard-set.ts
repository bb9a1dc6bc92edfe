import sharp, { OverlayOptions } from 'sharp';

/**
 * The harder BIB dev set, generated at bench time from the fixture photos (nothing is stored):
 * numbers that are not bibs, drawn as they appear around a race. Two groups:
 * - `distractors`: each fixture race photo with three of them in the bands where street furniture
 *   and parked cars are (above the runners' heads, below their bibs); ground truth unchanged.
 * - `negatives`: no bib at all. The race photos blurred out of readability (a race scene without
 *   readable bibs) and the face group shots, each with four of them; every hit there is wrong.
 *   Some land on people's torsos (a print on a T-shirt): a person gate cannot refuse those.
 * - `awayFromPeople`: no bib, and every number away from people: the blurred race photos with
 *   four of them above the heads or at leg and road height, and six streets without anybody with
 *   five each. A person gate must refuse them all.
 */
export interface HardPhoto {
  name: string;
  file: Buffer;
  bibs: Set<string>;
}

interface Drawing {
  svg: string;
  width: number;
  height: number;
}

const FONT = 'DejaVu Sans, Liberation Sans, sans-serif';
const BOLD = `font-family="${FONT}" font-weight="bold"`;

const svg = (width: number, height: number, body: string): Drawing => ({
  width,
  height,
  svg: `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${body}</svg>`,
});

/** Each maker draws one kind of non-bib number at digit height `h` (pixels). */
const MAKERS: Array<(h: number, pick: () => number) => Drawing> = [
  // Speed limit sign: black digits on a white disc (dark on light, alone on its patch).
  (h, pick) => {
    const n = [30, 50, 70, 90, 110][pick() % 5];
    const d = Math.round(h * 2.6);
    return svg(
      d,
      d,
      `<circle cx="${d / 2}" cy="${d / 2}" r="${d / 2 - 1}" fill="#d01818"/><circle cx="${d / 2}" cy="${d / 2}" r="${d * 0.39}" fill="#fafafa"/><text x="${d / 2}" y="${d / 2 + h * 0.36}" font-size="${h}" ${BOLD} text-anchor="middle" fill="#111">${n}</text>`,
    );
  },
  // Street name sign: white letters and number on blue.
  (h, pick) => {
    const text = ['Rue Grimaldi 14', 'Av. de la Costa 27', 'Bd Albert 1er 36', 'Quai 12'][pick() % 4];
    const w = Math.round(h * 0.62 * text.length + h);
    return svg(
      w,
      Math.round(h * 1.8),
      `<rect width="100%" height="100%" rx="${h * 0.2}" fill="#1d3f8f"/><rect x="${h * 0.12}" y="${h * 0.12}" width="${w - h * 0.24}" height="${h * 1.56}" rx="${h * 0.15}" fill="none" stroke="#fff" stroke-width="${h * 0.07}"/><text x="${w / 2}" y="${h * 1.25}" font-size="${h}" ${BOLD} text-anchor="middle" fill="#fff">${text}</text>`,
    );
  },
  // House number plaque: white on blue enamel, or black on a white plaque.
  (h, pick) => {
    const n = [7, 27, 148, 63, 215][pick() % 5];
    const light = pick() % 2 === 0;
    const w = Math.round(h * (0.7 * String(n).length + 1));
    return svg(
      w,
      Math.round(h * 1.7),
      `<rect width="100%" height="100%" rx="${h * 0.2}" fill="${light ? '#f4f4ee' : '#1d3f8f'}" stroke="#333" stroke-width="${h * 0.06}"/><text x="${w / 2}" y="${h * 1.22}" font-size="${h}" ${BOLD} text-anchor="middle" fill="${light ? '#151515' : '#fff'}">${n}</text>`,
    );
  },
  // Licence plates: EU (letters glued to digits), Spanish style (digits then letters), US style.
  (h, pick) => {
    const text = ['AB-123-CD', '4821 KLM', '7ABC123', 'DZ-508-PR', '1375 HBT'][pick() % 5];
    const w = Math.round(h * 0.72 * text.length + h * 1.2);
    return svg(
      w,
      Math.round(h * 1.45),
      `<rect width="100%" height="100%" rx="${h * 0.15}" fill="#f7f7f2" stroke="#222" stroke-width="${h * 0.06}"/><rect width="${h * 0.8}" height="100%" fill="#1f47b8"/><text x="${(w + h * 0.8) / 2}" y="${h * 1.1}" font-size="${h}" font-family="DejaVu Sans Mono, monospace" font-weight="bold" text-anchor="middle" fill="#111">${text}</text>`,
    );
  },
  // Race clock: amber LED digits on black.
  (h, pick) => {
    const text = ['00:42:17', '1:05:33', '0:38:04', '2:11:50'][pick() % 4];
    const w = Math.round(h * 0.65 * text.length + h);
    return svg(
      w,
      Math.round(h * 1.7),
      `<rect width="100%" height="100%" fill="#0b0b0b"/><text x="${w / 2}" y="${h * 1.23}" font-size="${h}" font-family="DejaVu Sans Mono, monospace" font-weight="bold" text-anchor="middle" fill="#ffb000">${text}</text>`,
    );
  },
  // Wall clock: black numerals (12, 3, 6, 9) on a white dial.
  (h) => {
    const d = Math.round(h * 5);
    const c = d / 2;
    const numerals = [
      ['12', c, h * 1.1],
      ['3', d - h * 0.75, c + h * 0.35],
      ['6', c, d - h * 0.35],
      ['9', h * 0.75, c + h * 0.35],
    ]
      .map(
        ([t, x, y]) =>
          `<text x="${x}" y="${y}" font-size="${h * 0.9}" ${BOLD} text-anchor="middle" fill="#111">${t}</text>`,
      )
      .join('');
    return svg(
      d,
      d,
      `<circle cx="${c}" cy="${c}" r="${c - 2}" fill="#fbfbf7" stroke="#333" stroke-width="${h * 0.15}"/>${numerals}<line x1="${c}" y1="${c}" x2="${c + h}" y2="${c - h * 1.2}" stroke="#111" stroke-width="${h * 0.12}"/><line x1="${c}" y1="${c}" x2="${c}" y2="${c - h * 1.8}" stroke="#111" stroke-width="${h * 0.08}"/>`,
    );
  },
  // Sponsor boards and banners: numbers among words of the same size.
  (h, pick) => {
    const text = ['MARATHON DE MONACO 2024', 'FINISH 42', 'KM 21', 'RUN CLUB 1987', 'SEMI 21 KM', 'EDITION 38'][
      pick() % 6
    ];
    const dark = pick() % 2 === 0;
    const w = Math.round(h * 0.7 * text.length + h * 2);
    return svg(
      w,
      Math.round(h * 1.9),
      `<rect width="100%" height="100%" fill="${dark ? '#c8102e' : '#ffffff'}"/><text x="${w / 2}" y="${h * 1.3}" font-size="${h}" ${BOLD} text-anchor="middle" fill="${dark ? '#fff' : '#0a2a6a'}">${text}</text>`,
    );
  },
  // Printed clothing: a jersey number (white on colour) or a print on a light T-shirt.
  (h, pick) => {
    const [text, fill, ink] = [
      ['23', '#b01020', '#fff'],
      ['1987', '#d8d8d0', '#222'],
      ['NYC 78', '#e8e4da', '#1a1a1a'],
      ['10', '#113377', '#f2f2f2'],
    ][pick() % 4];
    const w = Math.round(h * 0.75 * text.length + h * 3);
    return svg(
      w,
      Math.round(h * 3.2),
      `<rect width="100%" height="100%" rx="${h}" fill="${fill}"/><text x="${w / 2}" y="${h * 1.9}" font-size="${h * 1.2}" ${BOLD} text-anchor="middle" fill="${ink}">${text}</text>`,
    );
  },
  // Shop and taxi signs: phone numbers and prices, several digit groups on one line.
  (h, pick) => {
    const text = ['TAXI 06 12 34 56 78', 'PIZZA 9.90', 'OPEN 24/7', 'TEL 493 50 128'][pick() % 4];
    const w = Math.round(h * 0.66 * text.length + h * 1.5);
    return svg(
      w,
      Math.round(h * 1.7),
      `<rect width="100%" height="100%" fill="#ffd21a" stroke="#222" stroke-width="${h * 0.05}"/><text x="${w / 2}" y="${h * 1.22}" font-size="${h}" ${BOLD} text-anchor="middle" fill="#111">${text}</text>`,
    );
  },
];

/** A small deterministic generator, so every bench run draws the same set. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s >>> 8;
  };
}

/** `count` drawings pasted on `background` in the given bands (fractions of the height). */
export async function paste(
  background: Buffer,
  count: number,
  bands: Array<[number, number]>,
  pick: () => number,
): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(background).metadata();
  const layers: OverlayOptions[] = [];
  for (let i = 0; i < count; i++) {
    const h = Math.round(height * (0.014 + ((pick() % 1000) / 1000) * 0.03));
    const drawing = MAKERS[pick() % MAKERS.length](h, pick);
    const scale = Math.min(1, (width * 0.3) / drawing.width);
    const png = await sharp(Buffer.from(drawing.svg))
      .resize(Math.max(8, Math.round(drawing.width * scale)))
      .rotate((pick() % 9) - 4, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
      .png()
      .toBuffer();
    const meta = await sharp(png).metadata();
    const [top, bottom] = bands[i % bands.length];
    const slot = width / count;
    const left = Math.max(
      0,
      Math.min(
        width - (meta.width ?? 0),
        Math.round(slot * i + ((pick() % 1000) / 1000) * Math.max(1, slot - (meta.width ?? 0))),
      ),
    );
    const y = Math.round(height * (top + ((pick() % 1000) / 1000) * Math.max(0, bottom - top)));
    layers.push({ input: png, left, top: Math.max(0, Math.min(height - (meta.height ?? 0), y)) });
  }
  return sharp(background).composite(layers).jpeg({ quality: 90 }).toBuffer();
}

/**
 * Bands kept clear of the fixture bibs: the runners' bibs sit between ~15% and ~72% of the
 * height; signs hang above heads, plates and boards stand low (the bottom-right corner holds the
 * photographer's watermark, itself text that is not a bib).
 */
const RACE_BANDS: Array<[number, number]> = [
  [0.0, 0.06],
  [0.76, 0.86],
  [0.0, 0.06],
];

/** Bands of the race photos where no torso is: above the heads, and the legs and road below the shorts. */
const AWAY_BANDS: Array<[number, number]> = [
  [0.0, 0.05],
  [0.8, 0.9],
];

/**
 * A street without people (no runner, no spectator): sky, a wall and a road with some texture, so a
 * person gate has nobody to vouch for a number.
 */
async function emptyStreet(width: number, height: number, seed: number): Promise<Buffer> {
  const hue = (seed * 47) % 360;
  const body = `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="hsl(${hue},40%,80%)"/><stop offset="1" stop-color="hsl(${hue},25%,60%)"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#sky)"/><rect y="${height * 0.3}" width="${width}" height="${height * 0.35}" fill="hsl(${(hue + 30) % 360},15%,${55 + (seed % 3) * 8}%)"/>
    ${Array.from({ length: 12 }, (_, i) => `<rect x="${(i * width) / 12 + 20}" y="${height * 0.36}" width="${width / 20}" height="${height * 0.12}" fill="hsl(${hue},10%,${30 + (i % 4) * 10}%)"/>`).join('')}
    <rect y="${height * 0.65}" width="${width}" height="${height * 0.35}" fill="#5a5a5c"/><rect x="${width * 0.1}" y="${height * 0.8}" width="${width * 0.8}" height="${height * 0.01}" fill="#e8e8e8"/>`;
  const base = await sharp(Buffer.from(svg(width, height, body).svg))
    .png()
    .toBuffer();
  const noise = await sharp({
    create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 18 } },
  })
    .png()
    .toBuffer();
  return sharp(base)
    .composite([{ input: noise, blend: 'overlay' }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

export async function buildHardSet(
  race: Array<{ name: string; file: Buffer; bibs: Set<string> }>,
  groupShots: Array<{ name: string; file: Buffer }>,
): Promise<{ distractors: HardPhoto[]; negatives: HardPhoto[]; awayFromPeople: HardPhoto[] }> {
  const pick = seeded(17);
  const distractors: HardPhoto[] = [];
  const negatives: HardPhoto[] = [];
  for (const photo of race) {
    distractors.push({
      name: `signs+${photo.name}`,
      file: await paste(photo.file, 3, RACE_BANDS, pick),
      bibs: photo.bibs,
    });
    const blurred = await sharp(photo.file).blur(14).jpeg({ quality: 90 }).toBuffer();
    negatives.push({
      name: `blurred+${photo.name}`,
      file: await paste(blurred, 4, [[0.05, 0.8]], pick),
      bibs: new Set(),
    });
  }
  for (const shot of groupShots)
    negatives.push({
      name: `group+${shot.name}`,
      file: await paste(shot.file, 4, [[0.02, 0.8]], pick),
      bibs: new Set(),
    });
  // Numbers a person gate must refuse (drawn after the first two groups, so those stay as they were).
  const awayFromPeople: HardPhoto[] = [];
  for (const photo of race) {
    const blurred = await sharp(photo.file).blur(14).jpeg({ quality: 90 }).toBuffer();
    awayFromPeople.push({
      name: `away+${photo.name}`,
      file: await paste(blurred, 4, AWAY_BANDS, pick),
      bibs: new Set(),
    });
  }
  for (let i = 0; i < 6; i++)
    awayFromPeople.push({
      name: `street+${i}`,
      file: await paste(await emptyStreet(2048, 1365, i), 5, [[0.05, 0.85]], pick),
      bibs: new Set(),
    });
  return { distractors, negatives, awayFromPeople };
}
