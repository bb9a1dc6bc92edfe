// eslint-disable-next-line @typescript-eslint/no-require-imports
const tf = require('@tensorflow/tfjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('@tensorflow/tfjs-backend-wasm'); // registers the wasm kernels this replaces one of

type Numbers = Float32Array | Int32Array | Uint8Array;

/** Below this many values a run is copied value by value: a subarray view per run costs more than the copy. */
const SHORT_RUN = 64;

/**
 * The row-major concatenation of `inputs` along an axis: for each of the `outer` positions before
 * the axis, the run of `inner[i]` values of each input in turn.
 */
export function concatRuns(inputs: Numbers[], inner: number[], outer: number, out: Numbers): void {
  let o = 0;
  for (let b = 0; b < outer; b++) {
    for (let i = 0; i < inputs.length; i++) {
      const run = inner[i];
      const values = inputs[i];
      let s = b * run;
      if (run < SHORT_RUN) for (let k = 0; k < run; k++) out[o++] = values[s++];
      else {
        out.set(values.subarray(s, s + run), o);
        o += run;
      }
    }
  }
}

let replaced = false;

/**
 * tfjs-wasm's Concat copies each run with a new subarray view: face-api subtracts its models' mean
 * colour with a tensor it makes by concatenating three one-channel fills along the channel axis,
 * one view per pixel and channel (about 0.2 s of CPU per race photo, mostly in the tiny
 * detector). This Concat copies short runs value by value: the same values, in place. Once per
 * thread, for every model of the thread.
 */
export function useInterleavedConcat(): void {
  if (replaced) return;
  replaced = true;
  const original = tf.getKernel('Concat', 'wasm');
  if (!original) return;
  tf.unregisterKernel('Concat', 'wasm');
  tf.registerKernel({
    ...original,
    kernelFunc: (args: { inputs: any[]; attrs: { axis: number | number[] }; backend: any }) => {
      const { inputs, backend } = args;
      const axis = tf.util.parseAxisParam(args.attrs.axis, inputs[0].shape)[0];
      const filled = inputs.filter((t) => tf.util.sizeFromShape(t.shape) > 0);
      if (filled.length < 2 || filled[0].dtype === 'string') return original.kernelFunc(args);
      tf.backend_util.assertParamsConsistent(inputs.map((t) => t.shape), axis);
      const outShape = tf.backend_util.computeOutShape(inputs.map((t) => t.shape), axis);
      const out = backend.makeOutput(outShape, inputs[0].dtype);
      // Read after allocating the output: allocating can grow the heap, which detaches older views.
      const inner = filled.map((t) => tf.util.sizeFromShape(t.shape.slice(axis)));
      concatRuns(filled.map((t) => backend.typedArrayFromHeap(t)), inner, tf.util.sizeFromShape(filled[0].shape.slice(0, axis)), backend.typedArrayFromHeap(out));
      return out;
    },
  });
}
