// eslint-disable-next-line @typescript-eslint/no-require-imports
const tf = require('@tensorflow/tfjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('@tensorflow/tfjs-backend-wasm'); // registers the wasm kernels this replaces one of

type Numbers = Float32Array | Int32Array | Uint8Array;

/** Runs shorter than this are copied element by element (a typed-array `set` per run costs more). */
const SHORT_RUN = 64;

/**
 * The concatenation of `inputs` along an axis, each seen as `rows` rows of `inner[i]` values
 * (its size from the axis on): row r of the output is row r of each input, one after the other.
 */
export function concatInto(inputs: Numbers[], inner: number[], rows: number, out: Numbers): void {
  let o = 0;
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < inputs.length; i++) {
      const n = inner[i];
      const x = inputs[i];
      const from = r * n;
      if (n < SHORT_RUN) for (let j = 0; j < n; j++) out[o++] = x[from + j];
      else {
        out.set(x.subarray(from, from + n), o);
        o += n;
      }
    }
  }
}

let replaced = false;

/**
 * tfjs-wasm's Concat copies one typed-array `set` per run: joined along the channels (face-api
 * subtracts its mean colour so, before every tiny-detector, landmark and recognition pass), that is
 * one call per pixel and value, ~40 ms for the tiny detector's 416x416 input (~2 s of CPU per minute
 * of video). Short runs are copied element by element here. Same results; once per thread.
 */
export function useFastConcat(): void {
  if (replaced) return;
  replaced = true;
  const original = tf.getKernel('Concat', 'wasm');
  if (!original) return;
  tf.unregisterKernel('Concat', 'wasm');
  tf.registerKernel({
    ...original,
    kernelFunc: (args: { inputs: any[]; attrs: { axis: number | number[] }; backend: any }) => {
      const { inputs, backend } = args;
      const nonEmpty = inputs.filter((t) => tf.util.sizeFromShape(t.shape) > 0);
      if (inputs[0].dtype === 'string' || nonEmpty.length < 2) return original.kernelFunc(args);
      const axis = tf.util.parseAxisParam(args.attrs.axis, inputs[0].shape)[0];
      tf.backend_util.assertParamsConsistent(
        inputs.map((t) => t.shape),
        axis,
      );
      const out = backend.makeOutput(
        tf.backend_util.computeOutShape(
          inputs.map((t) => t.shape),
          axis,
        ),
        inputs[0].dtype,
      );
      const rows = tf.util.sizeFromShape(nonEmpty[0].shape.slice(0, axis));
      const inner = nonEmpty.map((t) => tf.util.sizeFromShape(t.shape.slice(axis)));
      // The output first: allocating can grow the heap, which detaches views taken before.
      const outVals = backend.typedArrayFromHeap(out);
      concatInto(
        nonEmpty.map((t) => backend.typedArrayFromHeap(t)),
        inner,
        rows,
        outVals,
      );
      return out;
    },
  });
}
