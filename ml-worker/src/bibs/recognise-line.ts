/** What the recogniser reads on one detected line: the text, its mean confidence and each character's. */
export interface LineReading {
  text: string;
  mean: number;
  /** Confidence of each character of `text` (0-1), in order. */
  chars: number[];
}

interface RecognitionModel {
  imageToInput(image: unknown, options: object): unknown;
  runModel(args: { modelData: unknown }): Promise<{ dims: number[]; data: Float32Array | number[] }>;
}

/**
 * How a line's pixels become the recogniser's input. 'library': 0..1, as wide as the line (the OCR library's
 * way); 'paddle': -1..1 and padded on the right with zeros to 320 columns, as PaddleOCR trained and runs it.
 */
export type RecogniserInput = 'library' | 'paddle';

/** The recogniser's input height, and the width PaddleOCR pads a shorter line to. */
const LINE_HEIGHT = 48;
const PADDED_WIDTH = 320;

interface PixelRows {
  data: ArrayLike<number>;
  width: number;
  height: number;
}

/**
 * A 48 px line as PaddleOCR feeds its recogniser: B, G, R planes scaled to -1..1, padded with 0 on the right
 * up to `PADDED_WIDTH` columns (the model saw short lines so padded in training).
 */
export function paddleLineInput(image: PixelRows): { data: Float32Array; width: number; height: number } {
  const width = Math.max(image.width, PADDED_WIDTH);
  const n = width * image.height;
  const out = new Float32Array(3 * n);
  for (let y = 0; y < image.height; y++)
    for (let x = 0; x < image.width; x++) {
      const i = (y * image.width + x) * 4;
      const p = y * width + x;
      out[p] = image.data[i + 2] / 127.5 - 1;
      out[n + p] = image.data[i + 1] / 127.5 - 1;
      out[2 * n + p] = image.data[i] / 127.5 - 1;
    }
  return { data: out, width, height: image.height };
}

/** An unsharp mask on the recogniser's 48 px line: the Gaussian's sigma in those pixels, and how much of the detail. */
export interface Sharpening {
  sigma: number;
  amount: number;
}

/**
 * `image` (4 bands) plus `amount` times its detail (itself less its Gaussian blur of `sigma`), alpha kept: blur spreads
 * each stroke into the paper, and this takes back what the spread took from its edges.
 */
export function unsharpMask(image: PixelRows, { sigma, amount }: Sharpening): PixelRows {
  const { width, height, data } = image;
  const radius = Math.max(1, Math.ceil(3 * sigma));
  const weights = Array.from({ length: 2 * radius + 1 }, (_, i) =>
    Math.exp(-((i - radius) ** 2) / (2 * sigma * sigma)),
  );
  const total = weights.reduce((a, b) => a + b, 0);
  const kernel = weights.map((w) => w / total);
  const clamp = (v: number, hi: number) => (v < 0 ? 0 : v > hi ? hi : v);
  const across = new Float32Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      for (let c = 0; c < 3; c++) {
        let v = 0;
        for (let k = -radius; k <= radius; k++)
          v += kernel[k + radius] * data[(y * width + clamp(x + k, width - 1)) * 4 + c];
        across[(y * width + x) * 4 + c] = v;
      }
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      for (let c = 0; c < 3; c++) {
        let blurred = 0;
        for (let k = -radius; k <= radius; k++)
          blurred += kernel[k + radius] * across[(clamp(y + k, height - 1) * width + x) * 4 + c];
        out[i + c] = clamp(Math.round(data[i + c] + amount * (data[i + c] - blurred)), 255);
      }
      out[i + 3] = data[i + 3];
    }
  return { data: out, width, height };
}

/**
 * Reads one line as the library's `Recognition.run` does (48 px high, CTC greedy decoding) but keeps
 * each character's confidence, which `run` averages away (the bib decision weighs the weakest digit).
 */
export async function recogniseLine(
  recognition: RecognitionModel,
  line: { image: { resize(o: { height: number }): Promise<unknown> } },
  dictionary: string[],
  input: RecogniserInput = 'library',
  sharpen?: Sharpening,
): Promise<LineReading | undefined> {
  const resized = await line.image.resize({ height: LINE_HEIGHT });
  const image = sharpen ? unsharpMask(resized as PixelRows, sharpen) : resized;
  const modelData = input === 'paddle' ? paddleLineInput(image as PixelRows) : recognition.imageToInput(image, {});
  const output = await recognition.runModel({ modelData });
  const reading = ctcDecode(output.data, output.dims[1], output.dims[2], dictionary);
  return reading.text && reading.mean >= 0.5 ? reading : undefined; // the library drops lines under 0.5 too
}

/** Greedy CTC decoding of one line's `steps` x `classes` scores: best class per step, repeats and blanks (class 0) dropped. */
export function ctcDecode(data: ArrayLike<number>, steps: number, classes: number, dictionary: string[]): LineReading {
  let text = '';
  const chars: number[] = [];
  let previous = -1;
  for (let s = 0; s < steps; s++) {
    let best = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let c = 0; c < classes; c++) {
      const v = data[s * classes + c];
      if (v > bestScore) {
        bestScore = v;
        best = c;
      }
    }
    if (best !== 0 && best !== previous) {
      text += dictionary[best - 1] ?? '';
      chars.push(bestScore);
    }
    previous = best;
  }
  return { text, chars, mean: chars.length ? chars.reduce((a, b) => a + b, 0) / chars.length : 0 };
}
