import { DEFAULT_BIB_RULES } from './extract';
import { DEFAULT_TORSO_RULES } from './torso-gate';
import type { Rgba } from './box-geometry';
import { readTextBoxes, TextOcr } from './read-text';
import type { TextLine } from './text-detection';

const W = 1000;
const H = 800;
/** Grey ground, a light patch at x 450-590, y 280-360 with dark vertical strokes (a printed number) on it. */
function photo(): Rgba {
  const data = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const patch = x >= 450 && x < 590 && y >= 280 && y < 360;
      const ink = x >= 470 && x < 570 && y >= 300 && y < 340 && x % 8 < 4;
      const v = ink ? 20 : patch ? 230 : 90;
      data.set([v, v, v, 255], (y * W + x) * 4);
    }
  }
  return { data, width: W, height: H };
}
const box = (x0: number, y0: number, x1: number, y1: number) => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
];

/** Two crops overlapping on x 400-600, both holding the number whole; the fake detector finds it in each. */
function ocr(text: string): TextOcr & { recognised: number } {
  const lines: TextLine[][] = [[{ box: box(466, 296, 574, 344) }], [{ box: box(67, 297, 175, 345) }]];
  let call = 0;
  const fake = {
    recognised: 0,
    detect: async () => lines[call++] ?? [],
    recognise: async () => {
      fake.recognised++;
      return { text, mean: 0.99, chars: [...text].map(() => 0.99) };
    },
  };
  return fake;
}
const crops = [
  { x: 0, y: 0, width: 600, height: H, scale: 1 },
  { x: 400, y: 0, width: 600, height: H, scale: 1 },
];

describe('readTextBoxes', () => {
  it('recognises a number that two overlapping crops both find once, in the crop that sees more around it', async () => {
    const fake = ocr('123');
    const boxes = await readTextBoxes(fake, photo(), crops, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    expect(fake.recognised).toBe(1);
    expect(boxes).toHaveLength(1);
    expect(boxes[0].geometry).toMatchObject({ x: 467, y: 297 }); // the right crop's: 67 px from its inner edge (x 400), the left crop's 26 px (x 600)
    expect(boxes[0].geometry?.glyphHeights?.length).toBeGreaterThan(0);
  });

  it("measures how far a number's ground reaches: the patch ends within a box height on every side", async () => {
    const [number] = await readTextBoxes(ocr('123'), photo(), crops, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    const reach = number.geometry?.groundReach;
    expect(reach).toBeDefined();
    for (const side of Object.values(reach!)) expect(side).toBeLessThan(1);
  });

  it('measures glyph heights and ground reach only for what reads as a number', async () => {
    const boxes = await readTextBoxes(ocr('ABC'), photo(), crops, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    expect(boxes).toHaveLength(1);
    expect(boxes[0].geometry?.glyphHeights).toBeUndefined();
    expect(boxes[0].geometry?.groundReach).toBeUndefined();
  });
});
