import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { printGeometry, Rgba } from './box-geometry';
import { groundReach, MAX_REACH } from './ground-reach';

type Colour = [number, number, number];

/**
 * A 400x300 torso of `shirt` colour on a grey street, with black "digits" (bars) 30 px tall at
 * (170,135)-(230,165) printed on `paper` (a sheet of the given size around them) or, without a
 * sheet, on the shirt itself.
 */
function torso(shirt: Colour, sheet?: { colour: Colour; width: number; height: number }): Rgba {
  const width = 400;
  const height = 300;
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const onShirt = x >= 80 && x < 320;
      const onSheet = sheet && Math.abs(x - 200) < sheet.width / 2 && Math.abs(y - 150) < sheet.height / 2;
      const ink = x >= 170 && x < 230 && y >= 135 && y < 165 && x % 12 < 5;
      const c: Colour = ink ? [20, 20, 20] : onSheet ? sheet.colour : onShirt ? shirt : [110, 110, 110];
      data.set([...c, 255], (y * width + x) * 4);
    }
  }
  return { data, width, height };
}

const numberBox = [
  [166, 132],
  [234, 132],
  [234, 168],
  [166, 168],
];
const WHITE: Colour = [245, 245, 240];
const openSides = (r: { left: number; right: number; up: number; down: number }) =>
  [r.left, r.right, r.up, r.down].filter((d) => d > 1).length;

describe('groundReach', () => {
  it('finds a bib sheet ending close around its number on a coloured shirt', () => {
    const image = torso([30, 60, 170], { colour: WHITE, width: 110, height: 70 });
    const r = groundReach(image, printGeometry(image, numberBox));
    for (const side of [r.left, r.right, r.up, r.down]) expect(side).toBeLessThan(0.7);
  });

  it('finds a white bib on a white shirt bounded by its coloured frame', () => {
    const framed = torso(WHITE, { colour: [200, 20, 30], width: 130, height: 90 });
    for (let y = 122; y < 178; y++)
      for (let x = 150; x < 250; x++)
        if (!(x >= 170 && x < 230 && y >= 135 && y < 165 && x % 12 < 5))
          framed.data.set([...WHITE, 255], (y * 400 + x) * 4);
    expect(openSides(groundReach(framed, printedGeometry(framed)))).toBe(0);
  });

  it('finds the edge of a white sheet on a light grey shirt (50 levels apart; a fainter edge is not seen on crisp print)', () => {
    const image = torso([195, 195, 190], { colour: WHITE, width: 110, height: 70 });
    const r = groundReach(image, printedGeometry(image));
    for (const side of [r.left, r.right, r.up, r.down]) expect(side).toBeLessThan(0.7);
  });

  it('finds the ground of a number printed on a shirt going on to the torso edges', () => {
    const image = torso([225, 225, 215]);
    const r = groundReach(image, printedGeometry(image));
    expect(r.left).toBeGreaterThan(2);
    expect(r.right).toBeGreaterThan(2);
    expect(r.up).toBe(MAX_REACH);
    expect(r.down).toBe(MAX_REACH);
  });

  it('stops at the edge of the photo', () => {
    const image = torso([225, 225, 215]);
    const r = groundReach(
      image,
      printGeometry(image, [
        [166, 5],
        [234, 5],
        [234, 41],
        [166, 41],
      ]),
    );
    expect(r.up).toBeLessThan(0.3);
  });

  const fixture = path.join(__dirname, '..', '..', '..', '..', 'shared', 'fixtures', 'bibs', 'prom4.jpg');
  (existsSync(fixture) ? it : it.skip)(
    'finds the real bibs of a race photo bounded (fixture prom4.jpg: 5823 and 2695, a red-framed bib on a blue shirt)',
    async () => {
      const { data, info } = await sharp(readFileSync(fixture))
        .rotate()
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      const image = { data, width: info.width, height: info.height };
      // the detector's boxes of the two numbers (bench bib-precision dump)
      for (const [x, y, w, h] of [
        [921, 535, 141, 52],
        [1615, 503, 125, 69],
      ]) {
        const r = groundReach(
          image,
          printGeometry(image, [
            [x, y],
            [x + w, y],
            [x + w, y + h],
            [x, y + h],
          ]),
        );
        expect(openSides(r)).toBe(0);
      }
    },
  );
});

function printedGeometry(image: Rgba) {
  return printGeometry(image, numberBox);
}
