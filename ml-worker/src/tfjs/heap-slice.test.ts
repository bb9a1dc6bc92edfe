import path from 'node:path';
import { copySlice, useHeapSlice } from './heap-slice';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const tf = require('@tensorflow/tfjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const wasm = require('@tensorflow/tfjs-backend-wasm');

/** The plain definition: every element of the block, in row-major order. */
function naiveSlice(x: Int32Array, shape: number[], begin: number[], size: number[]): number[] {
  const out: number[] = [];
  const walk = (d: number, offset: number) => {
    const stride = shape.slice(d + 1).reduce((a, b) => a * b, 1);
    for (let i = 0; i < size[d]; i++) {
      const at = offset + (begin[d] + i) * stride;
      if (d === shape.length - 1) out.push(x[at]);
      else walk(d + 1, at);
    }
  };
  walk(0, 0);
  return out;
}

describe('copySlice', () => {
  const cases: Array<[number[], number[], number[]]> = [
    [
      [5, 7, 3],
      [1, 2, 0],
      [3, 4, 3],
    ], // an image crop
    [
      [5, 7, 3],
      [0, 0, 1],
      [5, 7, 1],
    ], // one channel
    [
      [5, 7, 3],
      [2, 0, 0],
      [2, 7, 3],
    ], // whole rows: one run
    [
      [2, 5, 7, 3],
      [1, 1, 2, 0],
      [1, 3, 4, 3],
    ], // a batch
    [[9], [3], [4]],
    [
      [4, 6],
      [1, 0],
      [2, 6],
    ],
    [
      [4, 6],
      [0, 5],
      [4, 1],
    ],
  ];
  it.each(cases)('matches the definition for shape %j, begin %j, size %j', (shape, begin, size) => {
    const x = Int32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => i * 7 + 1);
    const out = new Int32Array(size.reduce((a, b) => a * b, 1));
    copySlice(x, shape, begin, size, out);
    expect([...out]).toEqual(naiveSlice(x, shape, begin, size));
  });
});

describe('useHeapSlice', () => {
  beforeAll(async () => {
    wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`);
    await tf.setBackend('wasm');
    await tf.ready();
  });

  it('gives what the wasm backend gave, with the image tensor left intact', async () => {
    const image = tf.tensor3d(
      Int32Array.from({ length: 40 * 30 * 3 }, (_, i) => i % 251),
      [40, 30, 3],
      'int32',
    );
    const before = await tf.slice(image, [5, 7, 0], [20, 10, 3]).data();
    const floats = await tf.slice(image.toFloat(), [0, 3, 1], [-1, 5, 2]).data();
    useHeapSlice();
    expect(tf.getKernel('Slice', 'wasm').kernelFunc.toString()).toContain('copySlice');
    expect([...(await tf.slice(image, [5, 7, 0], [20, 10, 3]).data())]).toEqual([...before]);
    expect([...(await tf.slice(image.toFloat(), [0, 3, 1], [-1, 5, 2]).data())]).toEqual([...floats]);
    expect((await image.data())[100]).toBe(100);
  });
});
