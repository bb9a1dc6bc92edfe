import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { BibReaderPool } from './bib-reader-pool';

jest.setTimeout(240_000);

const rbnr = (photo: string) => path.join(__dirname, '..', '..', '..', '..', 'shared', 'fixtures', 'rbnr', photo);

/** A race photo with its white sheets turned yellow, as the bench's rbnr-yellow race makes it (blue x0.3, green x0.9). */
async function yellowed(file: string): Promise<Buffer> {
  return sharp(readFileSync(file))
    .rotate()
    .recomb([
      [1, 0, 0],
      [0, 0.9, 0],
      [0, 0, 0.3],
    ])
    .jpeg({ quality: 90 })
    .toBuffer();
}

describe('BibReader on a yellow sheet', () => {
  const photo = rbnr('set1_09.JPG');
  (existsSync(photo) ? it : it.skip)(
    "reads a runner's yellow bib where other print on the crop passed the gates (RBNR set1_09 yellowed: 184)",
    async () => {
      const image = await yellowed(photo);
      const read = async (luminanceWhereNoNumber: boolean) => {
        // The reader runs on a thread, as the photo job runs it (the OCR library is an ES module).
        const pool = new BibReaderPool(
          1,
          { luminanceWhereNoNumber },
          path.join(__dirname, '..', '..', 'dist', 'bibs', 'bib-thread.js'),
        );
        try {
          return [...(await pool.read(image)).keys()];
        } finally {
          await pool.close();
        }
      };
      expect(await read(true)).toContain('184');
      // Without the look where no number was read, the colour pass's other print keeps the luminance pass away.
      expect(await read(false)).not.toContain('184');
    },
  );
});
