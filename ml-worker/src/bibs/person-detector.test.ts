import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { PersonDetector } from './person-detector';

jest.setTimeout(120_000);

const photo = path.join(__dirname, '..', '..', '..', '..', 'shared', 'fixtures', 'rbnr', 'set1_09.JPG');

describe('PersonDetector', () => {
  (existsSync(photo) ? it : it.skip)(
    'finds the same people on RGB pixels as on the same pixels with alpha',
    async () => {
      const rgb = await sharp(readFileSync(photo)).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const rgba = await sharp(rgb.data, { raw: { width: rgb.info.width, height: rgb.info.height, channels: 3 } })
        .ensureAlpha()
        .raw()
        .toBuffer();
      const detector = new PersonDetector();
      const size = { width: rgb.info.width, height: rgb.info.height };
      const withAlpha = await detector.detect({ data: rgba, ...size });
      expect(withAlpha.filter((p) => p.score >= 0.3).length).toBeGreaterThan(0);
      expect(await detector.detect({ data: rgb.data, ...size })).toEqual(withAlpha);
    },
  );
});
