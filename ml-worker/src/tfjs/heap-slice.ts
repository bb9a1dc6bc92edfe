// eslint-disable-next-line @typescript-eslint/no-require-imports
const tf = require('@tensorflow/tfjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('@tensorflow/tfjs-backend-wasm'); // registers the wasm kernels this replaces one of

type Numbers = Float32Array | Int32Array | Uint8Array;

/**
 * Copies the `size` block at `begin` of a row-major tensor of `shape` into `out`, one contiguous
 * run at a time (for an image crop, one row of the crop per run).
 */
export function copySlice(
  x: Numbers,
  shape: readonly number[],
  begin: readonly number[],
  size: readonly number[],
  out: Numbers,
): void {
  const rank = shape.length;
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  // The trailing dimensions taken whole, and the one before them, are one contiguous run.
  let d = rank - 1;
  let run = size[d];
  while (d > 0 && size[d] === shape[d]) run *= size[--d];
  const runs = size.slice(0, d).reduce((a, b) => a * b, 1);
  const index = new Array<number>(d).fill(0);
  let base = 0;
  for (let k = d; k < rank; k++) base += begin[k] * strides[k];
  for (let r = 0, o = 0; r < runs; r++, o += run) {
    let start = base;
    for (let k = 0; k < d; k++) start += (begin[k] + index[k]) * strides[k];
    out.set(x.subarray(start, start + run), o);
    for (let k = d - 1; k >= 0 && ++index[k] === size[k]; k--) index[k] = 0;
  }
}

let replaced = false;

/**
 * tfjs-wasm's Slice reads its input through `readSync`, which copies the whole tensor out of the
 * wasm heap: face-api cuts each face from the photo's tensor so, ~34 MB copied per face on a
 * 2048 px photo (about a third of a second of CPU per race photo). This Slice allocates the output
 * first, then reads both in place (allocating can grow the heap, which detaches older views).
 * Same results; once per thread, for every model of the thread.
 */
export function useHeapSlice(): void {
  if (replaced) return;
  replaced = true;
  const original = tf.getKernel('Slice', 'wasm');
  if (!original) return;
  tf.unregisterKernel('Slice', 'wasm');
  tf.registerKernel({
    ...original,
    kernelFunc: (args: {
      inputs: { x: any };
      attrs: { begin: number | number[]; size?: number | number[] };
      backend: any;
    }) => {
      const {
        inputs: { x },
        attrs,
        backend,
      } = args;
      if (x.dtype === 'string' || x.shape.length === 0) return original.kernelFunc(args);
      const [begin, size] = tf.slice_util.parseSliceParams(x, attrs.begin, attrs.size);
      const out = backend.makeOutput(size, x.dtype);
      if (tf.util.sizeFromShape(size) > 0)
        copySlice(backend.typedArrayFromHeap(x), x.shape, begin, size, backend.typedArrayFromHeap(out));
      return out;
    },
  });
}
