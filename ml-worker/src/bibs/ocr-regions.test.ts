import { cropRgba, ocrRegions } from './ocr-regions';

describe('ocrRegions', () => {
  const person = (x: number, y: number, score = 0.6) => ({ x, y, width: 0.1, height: 0.6, score });

  it('is one region per torso with a margin, in whole pixels of the image', () => {
    const [region] = ocrRegions([person(0.4, 0.2)], 1000, 1000);
    expect(region.x).toBeLessThanOrEqual(410);
    expect(region.x + region.width).toBeGreaterThanOrEqual(490);
    expect(region.y).toBeLessThanOrEqual(248);
    expect(region.y + region.height).toBeGreaterThanOrEqual(668);
    expect(region.y + region.height).toBeLessThan(800); // not the shins
  });

  it('merges overlapping torsos (no bib cut by a crop edge) and keeps apart ones apart', () => {
    expect(ocrRegions([person(0.4, 0.2), person(0.45, 0.2)], 1000, 1000)).toHaveLength(1);
    expect(ocrRegions([person(0.1, 0.2), person(0.7, 0.2)], 1000, 1000)).toHaveLength(2);
  });

  it('skips people the gate would not trust', () => {
    expect(ocrRegions([person(0.4, 0.2, 0.05)], 1000, 1000)).toEqual([]);
  });
});

describe('cropRgba', () => {
  it('copies the rows of the rectangle', () => {
    const data = Uint8Array.from({ length: 4 * 4 * 4 }, (_, i) => i);
    const crop = cropRgba({ data, width: 4, height: 4 }, { x: 1, y: 2, width: 2, height: 1 });
    expect([...crop.data]).toEqual([...data.slice((2 * 4 + 1) * 4, (2 * 4 + 3) * 4)]);
  });
});
