import sharp from 'sharp';

/** A drawn race photo: one white bib with the number, large enough for the BIB reader. */
export function drawnBibPhoto(bib: number | string, size: { width: number; height: number } = { width: 1400, height: 900 }): Promise<Buffer> {
  const { width, height } = size;
  const scale = width / 1400;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="#4a6d8c"/>
    <rect x="${480 * scale}" y="${(height - 300 * scale) / 2}" width="${440 * scale}" height="${300 * scale}" fill="white"/>
    <text x="${width / 2}" y="${height / 2 + 60 * scale}" font-size="${170 * scale}" font-family="DejaVu Sans, sans-serif" font-weight="bold" text-anchor="middle" fill="black">${bib}</text></svg>`;
  return sharp(Buffer.from(svg)).jpeg().toBuffer();
}

/** A multipart form of drawn photos, one per BIB, named `runner-<bib>.jpg`. */
export async function drawnPhotosForm(bibs: number[], size?: { width: number; height: number }): Promise<FormData> {
  const form = new FormData();
  for (const bib of bibs) form.append('files', new Blob([await drawnBibPhoto(bib, size)], { type: 'image/jpeg' }), `runner-${bib}.jpg`);
  return form;
}
