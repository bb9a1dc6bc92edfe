import { looksLikeBib } from './extract';
import { boxGeometry, numberCorners, printGeometry, Rgba, withGlyphs } from './box-geometry';

/** A 200x100 image of `ground`, with a 100x40 patch at (50,30) of `patch` and a 60x20 "digit" block of `ink` at (70,40). */
function printedImage(ground: number, patch: number, ink: number, inkFrom = 70, inkTo = 130): Rgba {
  const width = 200;
  const height = 100;
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inPatch = x >= 50 && x < 150 && y >= 30 && y < 70;
      // digit strokes: vertical bars, as digits leave patch between them
      const inInk = x >= inkFrom && x < inkTo && y >= 40 && y < 60 && x % 6 < 3;
      const v = inInk ? ink : inPatch ? patch : ground;
      data.set([v, v, v, 255], (y * width + x) * 4);
    }
  }
  return { data, width, height };
}

const textBox = [
  [66, 36],
  [134, 36],
  [134, 64],
  [66, 64],
];

describe('boxGeometry', () => {
  it('measures the ink, the patch and what surrounds the box', () => {
    const g = boxGeometry(printedImage(90, 230, 20), textBox);
    expect({ x: g.x, y: g.y, width: g.width, height: g.height }).toEqual({ x: 66, y: 36, width: 68, height: 28 });
    expect(g.dark).toBe(20);
    expect(g.light).toBe(230);
    expect(g.surround).toBe(230); // the strip around the box is still the bib's patch
  });

  it('tells dark print on a light patch (a bib) from light print on a dark ground (a jersey or a sign)', () => {
    const box = (image: Rgba) => ({ text: '23', confidence: 0.99, geometry: boxGeometry(image, textBox) });
    expect(looksLikeBib(box(printedImage(90, 230, 20)))).toBe(true);
    expect(looksLikeBib(box(printedImage(90, 40, 240)))).toBe(false);
  });

  it('weighs a number filling its sheet on the ground between its strokes, not the shirt around the sheet', () => {
    const wholeSheet = [
      [52, 32],
      [148, 32],
      [148, 68],
      [52, 68],
    ];
    const box = (image: Rgba) => ({ text: '23', confidence: 0.99, geometry: printGeometry(image, wholeSheet) });
    const redDigits = box(printedImage(40, 230, 80)); // luminance 80: red print on white, the sheet on a black shirt
    expect(redDigits.geometry.surround).toBeLessThan(redDigits.geometry.dark);
    expect(redDigits.geometry.inner).toBe(230);
    expect(looksLikeBib(redDigits)).toBe(true);
    expect(looksLikeBib(box(printedImage(40, 60, 240)))).toBe(false); // white digits on a dark patch
  });

  it('stays inside the image for boxes at its edges', () => {
    const g = boxGeometry(printedImage(90, 230, 20), [
      [-5, -5],
      [30, -5],
      [30, 20],
      [-5, 20],
    ]);
    expect(g.x).toBe(0);
    expect(g.y).toBe(0);
    expect(g.surround).toBe(90);
  });
});

describe('what a box is printed on: its glyphs', () => {
  it('counts glyph-sized ink blobs, each with its height', () => {
    const g = boxGeometry(printedImage(90, 230, 20), textBox);
    expect(g.glyphHeights).toEqual(Array(10).fill(20)); // the ten 20 px bars of the "digit" block
  });
});

describe('printGeometry and withGlyphs (glyphs measured only for the boxes read)', () => {
  it('printGeometry is boxGeometry without the glyph pass; withGlyphs adds it', () => {
    const image = printedImage(90, 230, 20);
    const print = printGeometry(image, textBox);
    expect(print.glyphHeights).toBeUndefined();
    expect(withGlyphs(image, print)).toEqual(boxGeometry(image, textBox));
  });
});

describe('numberCorners: the number inside a detector box that holds the whole patch', () => {
  const patchBox = [
    [46, 26],
    [154, 26],
    [154, 74],
    [46, 74],
  ]; // the patch and 4 px of dark shirt around it

  it('tightens the box to the digits, so the print rules see the patch around them, not the shirt', () => {
    const image = printedImage(25, 235, 20, 60, 140);
    const whole = printGeometry(image, patchBox);
    // Around the detector's box: the shirt.
    expect(whole.surround - whole.dark).toBeLessThan(0.08 * (whole.light - whole.dark));
    const corners = numberCorners(image, patchBox);
    expect(corners).toEqual([
      [60, 40],
      [140, 40],
      [140, 60],
      [60, 60],
    ]);
    expect(looksLikeBib({ text: '2583', confidence: 0.99, geometry: printGeometry(image, corners) })).toBe(true);
  });

  it('finds red digits on a white patch as ink (a colour, not only dark)', () => {
    const image = printedImage(25, 235, 20, 60, 140);
    for (let i = 0; i < image.data.length; i += 4) if (image.data[i] === 20) image.data.set([200, 90, 100], i);
    expect(numberCorners(image, patchBox)).toEqual([
      [60, 40],
      [140, 40],
      [140, 60],
      [60, 60],
    ]);
  });

  it('keeps the width of the box when the ink found spans only part of it (a digit, not the number)', () => {
    const patchOnly = [
      [46, 26],
      [154, 26],
      [154, 74],
      [46, 74],
    ];
    expect(numberCorners(printedImage(25, 235, 20, 90, 110), patchOnly)).toEqual([
      [46, 40],
      [154, 40],
      [154, 60],
      [46, 60],
    ]);
  });

  it('keeps a box already tight around its digits', () => {
    const tight = [
      [70, 40],
      [130, 40],
      [130, 60],
      [70, 60],
    ];
    expect(numberCorners(printedImage(90, 230, 20), tight)).toEqual(tight);
  });
});
