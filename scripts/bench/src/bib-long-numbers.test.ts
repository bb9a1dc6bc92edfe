import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { installedBibFonts, SHEET_PLACES, withLongerBibs } from './bib-long-numbers';

const RBNR = path.resolve(__dirname, '../../../../shared/fixtures/rbnr');
const fonts = installedBibFonts();
const ready = fonts.length > 0 && existsSync(path.join(RBNR, 'set1_83.JPG'));

// A generated race is measured run after run: it must be the same photos and labels every time.
(ready ? describe : describe.skip)('withLongerBibs (RBNR set1_83, read in place)', () => {
  const file = ready ? readFileSync(path.join(RBNR, 'set1_83.JPG')) : Buffer.alloc(0);
  const places = SHEET_PLACES.rbnr.filter((p) => p.photo === 'set1_83.JPG');
  const labels = new Set(['3655', '168', '1676']);

  it('labels each covered bib by its new 5-6 digit number (or a neighbour sharing its first four digits) and keeps the others', async () => {
    const { bibs, placed } = await withLongerBibs('set1_83.JPG', file, labels, places, fonts, 88);
    expect(placed.map((p) => p.bib).sort()).toEqual(['168', '3655']);
    expect([...bibs].sort()).toEqual(['1676', ...placed.map((p) => p.number)].sort());
    for (const { number } of placed) expect(number).toMatch(/^[1-9]\d{3,5}$/);
    expect(placed.filter((p) => p.number.length >= 5).length).toBeGreaterThan(0);
  });

  it('is the same photo and labels on every run, and 720 px wide when asked', async () => {
    const [a, b] = await Promise.all([
      withLongerBibs('set1_83.JPG', file, labels, places, fonts, 88, 720),
      withLongerBibs('set1_83.JPG', file, labels, places, fonts, 88, 720),
    ]);
    expect(a.file.equals(b.file)).toBe(true);
    expect([...a.bibs]).toEqual([...b.bibs]);
    expect((await sharp(a.file).metadata()).width).toBe(720);
  });
});
