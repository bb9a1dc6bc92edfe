import { openImage } from '@em/core/media';

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

/**
 * Reads one line as the library's `Recognition.run` does (48 px high, CTC greedy decoding) but keeps
 * each character's confidence, which `run` averages away (the bib decision weighs the weakest digit).
 */
export async function recogniseLine(
  recognition: RecognitionModel,
  line: { image: { resize(o: { height: number }): Promise<unknown> } },
  dictionary: string[],
  input: RecogniserInput = 'library',
  stretch = 0,
): Promise<LineReading | undefined> {
  const image = (await line.image.resize({ height: LINE_HEIGHT })) as PixelRows;
  const read = async (rows: PixelRows) => {
    const modelData = input === 'paddle' ? paddleLineInput(rows) : recognition.imageToInput(rows, {});
    const output = await recognition.runModel({ modelData });
    return ctcDecode(output.data, output.dims[1], output.dims[2], dictionary);
  };
  let reading = await read(image);
  if (stretch > 1 && REPEAT_CANDIDATE.test(reading.text))
    reading = restoredRepeat(reading, await read(await stretchedRows(image, stretch)));
  return reading.text && reading.mean >= 0.5 ? reading : undefined; // the library drops lines under 0.5 too
}

/** A number short enough that one more digit keeps it a bib (2-6 digits). */
const REPEAT_CANDIDATE = /^\d{2,5}$/;

/** A line's 48 px rows stretched `factor` times wider: more CTC steps per glyph. */
async function stretchedRows(image: PixelRows, factor: number): Promise<PixelRows> {
  const raw = Buffer.from(Uint8Array.from(image.data));
  const { data, info } = await openImage(raw, { raw: { width: image.width, height: image.height, channels: 4 } })
    .resize({ width: Math.round(image.width * factor), height: image.height, fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/**
 * The read of a line or, where the same line stretched wider reads the same digits with one of them twice in a
 * row (`1777` for `177`), the stretched read: greedy CTC merges a repeated character that no blank step
 * separates, which two touching equal digits read at too few steps a glyph give; a stretched line has more steps.
 */
export function restoredRepeat(read: LineReading, stretched: LineReading): LineReading {
  const [short, long] = [read.text, stretched.text];
  if (long.length !== short.length + 1) return read;
  for (let i = 1; i < long.length; i++)
    if (long[i] === long[i - 1] && long.slice(0, i) + long.slice(i + 1) === short) return stretched;
  return read;
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
