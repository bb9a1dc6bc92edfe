import { DetectionModel, detectorFrame, detectTextLines, paddedLineRegion, textMask } from './text-detection';

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
