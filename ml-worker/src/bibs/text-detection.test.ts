import sharp from 'sharp';
import {
  DetectionModel,
  detectorBands,
  detectorFrame,
  framedBands,
  detectTextLines,
  levelledLineCut,
  linesOnce,
  paddedLineRegion,
  rolledCopy,
  stretchedLuminance,
  textMask,
} from './text-detection';
import { glyphsBeyondBox } from './widened-read';

describe('detectorFrame', () => {
  it('scales the image and centres it in a frame of multiples of 32, as the library letterboxes', () => {
    expect(detectorFrame(2048, 1367, 1)).toEqual({
      width: 2048,
      height: 1367,
      left: 0,
      top: 4,
      frameWidth: 2048,
      frameHeight: 1376,
    });
    expect(detectorFrame(400, 300, 0.5)).toEqual({
      width: 200,
      height: 150,
      left: 12,
      top: 5,
      frameWidth: 224,
      frameHeight: 160,
    });
  });

  it("never goes under the model's least input", () => {
    expect(detectorFrame(10, 10, 0.25)).toMatchObject({ frameWidth: 32, frameHeight: 32, width: 3, height: 3 });
  });
});

describe('textMask', () => {
  it('is white where text is likely, black elsewhere, over the scaled image only (not the frame around it)', () => {
    const frame = { width: 2, height: 1, left: 1, top: 1, frameWidth: 4, frameHeight: 3 };
    const probabilities = [0, 0, 0, 0, 0, 0.9, 0.01, 0.9, 0, 0, 0, 0];
    const mask = textMask(probabilities, frame);
    expect({ width: mask.width, height: mask.height }).toEqual({ width: 2, height: 1 });
    expect([...mask.data]).toEqual([255, 255, 255, 255, 0, 0, 0, 255]);
  });
});

describe('detectTextLines', () => {
  const image = { data: new Uint8Array(100 * 60 * 4).fill(200), width: 100, height: 60 };

  it('runs the model on the scaled, framed copy and splits its mask against the original pixels', async () => {
    let seen: { width: number; height: number } | undefined;
    const model: DetectionModel = {
      imageToInput: (input) => {
        seen = { width: input.width, height: input.height };
        return { data: new Float32Array(3 * input.width * input.height), width: input.width, height: input.height };
      },
      runModel: async ({ modelData }) => ({
        data: new Float32Array(modelData.width * modelData.height).fill(1),
        dims: [1, 1, modelData.height, modelData.width],
      }),
    };
    const split = jest.fn(async () => [{ box: [[0, 0]] }]);
    const lines = await detectTextLines(model, split, image, 0.5);
    expect(seen).toEqual({ width: 64, height: 32 });
    expect(lines).toEqual([{ box: [[0, 0]] }]);
    const [mask, source] = split.mock.calls[0] as unknown as [
      { width: number; height: number; data: Uint8Array },
      unknown,
    ];
    expect({ width: mask.width, height: mask.height }).toEqual({ width: 50, height: 30 });
    expect(mask.data.every((v) => v === 255)).toBe(true);
    expect(source).toBe(image);
  });

  it('with luminance, gives the model one grey band and, for both, cuts the lines from it', async () => {
    const yellow = sheet([250, 225, 75], [230, 80, 25]);
    const inputs: Array<{ channels: number; data: Uint8Array }> = [];
    const model: DetectionModel = {
      imageToInput: (input) => {
        inputs.push({ channels: input.channels, data: Uint8Array.from(input.data) });
        return { data: new Float32Array(3 * input.width * input.height), width: input.width, height: input.height };
      },
      runModel: async ({ modelData }) => ({ data: new Float32Array(modelData.width * modelData.height), dims: [] }),
    };
    const split = jest.fn(async () => []);
    await detectTextLines(model, split, yellow, 1, 0, true, 'detector');
    await detectTextLines(model, split, yellow, 1, 0, true, 'both');
    await detectTextLines(model, split, yellow, 1);
    expect(inputs.map((input) => input.channels)).toEqual([1, 1, 3]);
    // The yellow ground and the orange ink are far apart in grey (the stretch makes them black and white).
    expect(new Set(inputs[0].data)).toEqual(new Set([0, 255]));
    const grey = (data: Uint8Array) => data.every((v, i) => i % 4 === 3 || v === data[i - (i % 4)]);
    const sources = split.mock.calls.map((call) => (call as unknown as [unknown, { data: Uint8Array }])[1]);
    expect(sources[0]).toBe(yellow);
    expect(grey(sources[1].data)).toBe(true);
  });

  it("with 'paddle' input, takes ImageNet's mean and deviation off as PaddleOCR does (B gets R's figures)", async () => {
    const normalisations: object[] = [];
    const model: DetectionModel = {
      imageToInput: (input, options) => {
        normalisations.push(options);
        return { data: new Float32Array(3 * input.width * input.height), width: input.width, height: input.height };
      },
      runModel: async ({ modelData }) => ({ data: new Float32Array(modelData.width * modelData.height), dims: [] }),
    };
    await detectTextLines(model, async () => [], image, 1, 0, true, 'off', 'paddle');
    await detectTextLines(model, async () => [], image, 1);
    expect(normalisations).toEqual([{ mean: [0.406, 0.456, 0.485], std: [0.225, 0.224, 0.229] }, {}]);
  });
});

describe('detectTextLines with a roll (a bib tilted on a turning body, which the detector finds only levelled)', () => {
  // A white crop with a grey bar 4 px thick, 60 px long, going down to the right at 15 degrees, centred at (60, 40).
  const [cx, cy, angle] = [60, 40, (15 * Math.PI) / 180];
  const crop = { data: new Uint8Array(120 * 80 * 4).fill(255), width: 120, height: 80 };
  for (let y = 0; y < 80; y++)
    for (let x = 0; x < 120; x++) {
      const along = (x - cx) * Math.cos(angle) + (y - cy) * Math.sin(angle);
      const across = -(x - cx) * Math.sin(angle) + (y - cy) * Math.cos(angle);
      if (Math.abs(along) < 30 && Math.abs(across) < 2) crop.data.fill(60, (y * 120 + x) * 4, (y * 120 + x) * 4 + 3);
    }
  /** A detector that finds level print only: ink (not the black around a turned crop) in a row 20 px long. */
  const levelOnly: DetectionModel = {
    imageToInput: (input) => ({
      data: Float32Array.from({ length: input.width * input.height }, (_, p) => input.data[p * input.channels]),
      width: input.width,
      height: input.height,
    }),
    runModel: async ({ modelData: { data, width, height } }) => {
      const out = new Float32Array(width * height);
      for (let y = 0; y < height; y++)
        for (let x = 0, run = 0; x <= width; x++) {
          if (x < width && data[y * width + x] > 30 && data[y * width + x] < 100) run++;
          else {
            if (run >= 20) out.fill(1, y * width + x - run, y * width + x);
            run = 0;
          }
        }
      return { data: out, dims: [1, 1, height, width] };
    },
  };
  const maskOf = async (roll: number) => {
    const split = jest.fn(async () => []);
    await detectTextLines(levelOnly, split, crop, 1, 0, true, 'off', 'library', false, false, roll);
    return (split.mock.calls[0] as unknown as [{ data: Uint8Array; width: number }])[0];
  };
  const white = (mask: { data: Uint8Array; width: number }, x: number, y: number) =>
    mask.data[(y * mask.width + x) * 4];

  it('finds no line on the tilted bar as it is, and the bar where it lies once the crop is turned level', async () => {
    const level = await maskOf(0);
    expect(level.data.some((v, i) => i % 4 === 0 && v === 255)).toBe(false);
    const rolled = await maskOf(-15);
    expect({ width: rolled.width, height: (rolled as unknown as { height: number }).height }).toEqual({
      width: 120,
      height: 80,
    });
    // Text at the bar's middle and near either end (on its axis), none a bar's length above or below.
    const along = (d: number) => [Math.round(cx + d * Math.cos(angle)), Math.round(cy + d * Math.sin(angle))];
    for (const d of [-25, 0, 25]) expect(white(rolled, along(d)[0], along(d)[1])).toBe(255);
    expect(white(rolled, 60, 15)).toBe(0);
    expect(white(rolled, 60, 65)).toBe(0);
    // Turned the wrong way the bar is steeper: still not found.
    const wrongWay = await maskOf(15);
    expect(wrongWay.data.some((v, i) => i % 4 === 0 && v === 255)).toBe(false);
  });

  it('turns the crop about its centre onto a canvas that holds all of it, black around it', () => {
    const turned = rolledCopy(crop, 1, 90);
    expect({ width: turned.width, height: turned.height }).toEqual({ width: 80, height: 120 });
    const quarter = rolledCopy(crop, 0.5, 30);
    expect(quarter.width).toBe(Math.ceil(60 * Math.cos(Math.PI / 6) + 40 * Math.sin(Math.PI / 6)));
    expect([...quarter.data.subarray(0, 4)]).toEqual([0, 0, 0, 255]);
  });
});

describe('linesOnce (two looks at a crop read each line once)', () => {
  it('leaves out a line of the second look that overlaps one of the first by more than half', () => {
    const box = (x: number, y: number) => [
      [x, y],
      [x + 40, y],
      [x + 40, y + 10],
      [x, y + 10],
    ];
    const [a, b, c] = [{ box: box(0, 0) }, { box: box(2, 1) }, { box: box(0, 30) }];
    expect(linesOnce([a], [b, c])).toEqual([a, c]);
  });
});

describe('framedBands (the detector sees R, G, B without alpha, or one band of a grey copy)', () => {
  /** The detector's view as it was made before: the RGBA crop resized and framed by sharp, alpha and all. */
  async function rgbaFramed(image: { data: Uint8Array; width: number; height: number }, scale: number) {
    const frame = detectorFrame(image.width, image.height, scale);
    const { width, height, left, top, frameWidth, frameHeight } = frame;
    const data = await sharp(Buffer.from(image.data), {
      raw: { width: image.width, height: image.height, channels: 4 },
    })
      .resize(width, height, { fit: 'fill' })
      .extend({ left, top, right: frameWidth - width - left, bottom: frameHeight - height - top, background: '#000' })
      .raw()
      .toBuffer();
    return { frame, data };
  }

  /** A photo-like crop: smooth gradients, hard-edged print and noise, every level of each channel. */
  function crop(width: number, height: number, grey = false) {
    const data = new Uint8Array(width * height * 4);
    let seed = 7;
    for (let p = 0; p < width * height; p++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const [x, y] = [p % width, Math.floor(p / width)];
      const ink = (Math.floor(x / 5) + Math.floor(y / 7)) % 3 === 0 ? 0 : 200;
      const rgb = [(x * 7 + ink + (seed % 40)) % 256, (y * 5 + ink) % 256, (ink + x + y + (seed % 13)) % 256];
      data.set([...(grey ? [rgb[0], rgb[0], rgb[0]] : rgb), 255], p * 4);
    }
    return { data, width, height };
  }

  it.each([
    ['enlarged', 2.7],
    ['reduced', 0.43],
    ['unscaled', 1],
  ])('gives the same values as the RGBA crop resized and framed (%s)', async (_, scale) => {
    for (const grey of [false, true]) {
      const image = crop(61, 83, grey);
      const before = await rgbaFramed(image, scale);
      const now = await framedBands(detectorBands(image, grey), before.frame);
      const bands = grey ? 1 : 3;
      expect([now.width, now.height, now.channels]).toEqual([before.frame.frameWidth, before.frame.frameHeight, bands]);
      const expected = new Uint8Array(now.width * now.height * bands);
      for (let p = 0; p < now.width * now.height; p++)
        for (let c = 0; c < bands; c++) expected[p * bands + c] = before.data[p * 4 + c];
      expect(Buffer.from(now.data).equals(Buffer.from(expected))).toBe(true);
    }
  });
});

/** A 40x20 sheet of one colour with a band of ink across its middle (a fifth of its pixels). */
function sheet(ground: number[], ink: number[]) {
  const data = new Uint8Array(40 * 20 * 4);
  for (let p = 0; p < 40 * 20; p++) {
    const row = Math.floor(p / 40);
    data.set([...(row >= 8 && row < 12 ? ink : ground), 255], p * 4);
  }
  return { data, width: 40, height: 20 };
}

describe('stretchedLuminance (a bib is dark print on a light sheet, whatever the colour of the sheet)', () => {
  it('makes a yellow sheet white and its orange print black, in three equal channels', () => {
    const out = stretchedLuminance(sheet([250, 225, 75], [230, 80, 25]));
    expect([...out.data.subarray(0, 4)]).toEqual([255, 255, 255, 255]);
    const inkAt = (10 * 40 + 5) * 4;
    expect([...out.data.subarray(inkAt, inkAt + 4)]).toEqual([0, 0, 0, 255]);
  });

  it('a white sheet with black print stays so; a flat image is only made grey, not stretched', () => {
    const white = stretchedLuminance(sheet([255, 255, 255], [0, 0, 0]));
    expect([...white.data.subarray(0, 3)]).toEqual([255, 255, 255]);
    const flat = stretchedLuminance(sheet([120, 120, 120], [130, 130, 130]));
    expect([...flat.data.subarray(0, 3)]).toEqual([120, 120, 120]);
    const inkAt = (10 * 40 + 5) * 4;
    expect([...flat.data.subarray(inkAt, inkAt + 3)]).toEqual([130, 130, 130]);
  });
});

describe('paddedLineRegion (a level line is read with the ground beside it: a thin leading "1" cut by the box)', () => {
  const level = [
    [100, 50],
    [160, 50],
    [160, 70],
    [100, 70],
  ];

  it('widens a level box by the padding times its height on both sides, not up or down', () => {
    expect(paddedLineRegion(level, 400, 300, 0.25)).toEqual({ x: 95, y: 50, width: 70, height: 20 });
    expect(paddedLineRegion(level, 400, 300, 0.5)).toEqual({ x: 90, y: 50, width: 80, height: 20 });
  });

  it('stays inside the image', () => {
    expect(paddedLineRegion(level, 162, 300, 0.5)).toEqual({ x: 90, y: 50, width: 72, height: 20 });
  });

  it('leaves a slanted line to the deskewed cut', () => {
    const slanted = [
      [100, 50],
      [160, 62],
      [156, 82],
      [96, 70],
    ];
    expect(paddedLineRegion(slanted, 400, 300, 0.25)).toBeNull();
  });
});

describe('levelledLineCut (a slanted line widened along its own axis: the box cut its leading "1")', () => {
  const [W, H, ANGLE] = [200, 160, 0.4];
  const [cos, sin] = [Math.cos(ANGLE), Math.sin(ANGLE)];
  const origin = [60, 50];
  /**
   * A light sheet turned by ANGLE about `origin`: in its own frame digits are strokes at a of 40-45, 55-60, 70-75,
   * b 20-40, and `extra` adds ink (a leading "1" at a 27-32, or the sheet's end at a 28).
   */
  function turnedSheet(extra: (a: number, b: number) => boolean) {
    const data = new Uint8Array(W * H * 4);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const [dx, dy] = [x + 0.5 - origin[0], y + 0.5 - origin[1]];
        const [a, b] = [dx * cos + dy * sin, -dx * sin + dy * cos];
        const digit = b >= 20 && b < 40 && [40, 55, 70].some((left) => a >= left && a < left + 5);
        const v = digit || extra(a, b) ? 30 : 230;
        data.set([v, v, v, 255], (y * W + x) * 4);
      }
    return { data, width: W, height: H };
  }
  // The detector's box in the sheet's frame: a 30-90, b 18-42 (its left side cuts the "1" at a 27-32).
  const turned = (a: number, b: number) => [origin[0] + a * cos - b * sin, origin[1] + a * sin + b * cos];
  const box = [turned(30, 18), turned(90, 18), turned(90, 42), turned(30, 42)];
  const leadingOne = (a: number, b: number) => a >= 27 && a < 32 && b >= 20 && b < 40;
  const sheetEnd = (a: number) => a < 28;

  it('cuts the line level, widened by the padding times its height, and the glyph check sees the "1" as a digit', () => {
    const cut = levelledLineCut(turnedSheet(leadingOne), box, 0.25)!;
    expect({ width: cut.line.width, height: cut.line.height }).toEqual({ width: 60 + 12, height: 24 });
    const { pixels, box: inCut } = cut.check.levelled;
    expect(glyphsBeyondBox(pixels, inCut, cut.check.region)).toEqual([
      expect.objectContaining({ side: 'left', digit: true }),
    ]);
  });

  it("sees the sheet's end beyond the box as no digit", () => {
    const cut = levelledLineCut(turnedSheet(sheetEnd), box, 0.25)!;
    const [edge] = glyphsBeyondBox(cut.check.levelled.pixels, cut.check.levelled.box, cut.check.region);
    expect(edge).toMatchObject({ side: 'left', digit: false });
  });

  it('leaves upright text (taller than long) and tiny boxes alone', () => {
    const upright = [turned(30, 0), turned(40, 0), turned(40, 30), turned(30, 30)];
    expect(levelledLineCut(turnedSheet(sheetEnd), upright, 0.25)).toBeNull();
    expect(
      levelledLineCut(turnedSheet(sheetEnd), [turned(0, 0), turned(2, 0), turned(2, 2), turned(0, 2)], 0.25),
    ).toBeNull();
  });
});

describe('detectTextLines with the crop sharpened for the detector (a stroke spread by motion or focus blur)', () => {
  // A light crop (200) with a blurred dark stroke: 150 on columns 10-12, 175 on the columns beside them; 64 x 32, so
  // the detector's frame adds no black around it.
  const crop = { data: new Uint8Array(64 * 32 * 4).fill(200), width: 64, height: 32 };
  for (let y = 0; y < 32; y++)
    for (let x = 9; x <= 13; x++)
      crop.data.fill(x === 9 || x === 13 ? 175 : 150, (y * 64 + x) * 4, (y * 64 + x) * 4 + 3);
  const darkestSeen = async (sharpen: { sigma: number; amount: number } | null) => {
    let darkest = 255;
    const model: DetectionModel = {
      imageToInput: (input) => {
        for (let i = 0; i < input.data.length; i++) darkest = Math.min(darkest, input.data[i]);
        return { data: new Float32Array(3 * input.width * input.height), width: input.width, height: input.height };
      },
      runModel: async ({ modelData: { width, height } }) => ({
        data: new Float32Array(width * height),
        dims: [1, 1, height, width],
      }),
    };
    const split = jest.fn(async () => []);
    await detectTextLines(model, split, crop, 1, 0, true, 'off', 'library', false, false, 0, sharpen);
    return { darkest, source: (split.mock.calls[0] as unknown[])[1] };
  };

  it("gives the detector the stroke darker than the crop's and cuts the lines from the crop's own pixels", async () => {
    const sharpened = await darkestSeen({ sigma: 1, amount: 1 });
    expect(sharpened.darkest).toBeLessThan(145);
    expect(sharpened.source).toBe(crop);
    expect((await darkestSeen(null)).darkest).toBe(150);
  });
});
