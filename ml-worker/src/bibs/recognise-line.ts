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
 * Reads one line as the library's `Recognition.run` does (48 px high, CTC greedy decoding) but keeps
 * each character's confidence, which `run` averages away (the bib decision weighs the weakest digit).
 */
export async function recogniseLine(
  recognition: RecognitionModel,
  line: { image: { resize(o: { height: number }): Promise<unknown> } },
  dictionary: string[],
): Promise<LineReading | undefined> {
  const image = await line.image.resize({ height: 48 });
  const output = await recognition.runModel({ modelData: recognition.imageToInput(image, {}) });
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
