import sharp from 'sharp';

/** A drawn race photo: one white bib with the number, large enough for the BIB reader. */
export function drawnBibPhoto(
  bib: number | string,
  size: { width: number; height: number } = { width: 1400, height: 900 },
): Promise<Buffer> {
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
  for (const bib of bibs)
    form.append(
      'files',
      new Blob([new Uint8Array(await drawnBibPhoto(bib, size))], { type: 'image/jpeg' }),
      `runner-${bib}.jpg`,
    );
  return form;
}

type Run = (text: string, params: unknown[]) => Promise<Array<Record<string, any>>>;

/**
 * Every drawn photo of the event processed exactly once: all `processed`, no BIB row twice, no
 * number but its own, and nearly all of them read (the reader may miss a rare one; a duplicate
 * job would show as a second row).
 */
export async function expectDrawnPhotosProcessedOnce(run: Run, eventId: number, bibs: number[]): Promise<void> {
  const rows = await run(
    `select p.original_file_name as name, p.status, coalesce(array_agg(b.bib) filter (where b.bib is not null), '{}') as bibs
       from photos p left join photo_bibs b on b.photo_id = p.id where p.event_id = $1 group by 1, 2 order by 1`,
    [eventId],
  );
  expect(rows.map((r) => r.name)).toEqual(bibs.map((b) => `runner-${b}.jpg`).sort());
  const wrong = rows.filter(
    (r) =>
      r.status !== 'processed' || r.bibs.length > 1 || r.bibs.some((bib: string) => `runner-${bib}.jpg` !== r.name),
  );
  expect(wrong).toEqual([]);
  expect(rows.filter((r) => r.bibs.length === 1).length).toBeGreaterThanOrEqual(Math.floor(bibs.length * 0.95));
}
