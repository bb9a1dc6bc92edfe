import { concatRuns, useInterleavedConcat } from './interleaved-concat';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const tf = require('@tensorflow/tfjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const wasm = require('@tensorflow/tfjs-backend-wasm');

describe('concatRuns', () => {
  it('lays out each outer position\'s runs one input after the other, short runs and long', () => {
    const a = Int32Array.from({ length: 2 * 3 }, (_, i) => 100 + i); // [2, 3]
    const b = Int32Array.from({ length: 2 * 70 }, (_, i) => 1000 + i); // [2, 70]
    const out = new Int32Array(2 * 73);
    concatRuns([a, b], [3, 70], 2, out);
    expect([...out]).toEqual([...a.slice(0, 3), ...b.slice(0, 70), ...a.slice(3), ...b.slice(70)]);
  });
});

describe('useInterleavedConcat', () => {
  beforeAll(async () => {
    wasm.setWasmPaths(`${require('node:path').dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`);
    await tf.setBackend('wasm');
    await tf.ready();
  });

  it('gives what the wasm backend gave, bit for bit', async () => {
    const x = tf.tensor4d(Float32Array.from({ length: 2 * 9 * 7 * 3 }, (_, i) => Math.sin(i) * 1000), [2, 9, 7, 3]);
    const cases = () => [
      // face-api's mean colour: three one-channel fills along the channel axis, then subtracted.
      tf.sub(x, tf.concat([tf.fill([2, 9, 7, 1], 122.782), tf.fill([2, 9, 7, 1], 117.001), tf.fill([2, 9, 7, 1], 104.298)], 3)),
      tf.concat([x, x.slice([0, 0, 0, 0], [2, 9, 7, 1])], 3),
      tf.concat([x, tf.zeros([2, 1, 7, 3])], 1),
      tf.concat([x, x], 0),
      tf.concat([tf.tensor1d([1, 2, 3], 'int32'), tf.tensor1d([], 'int32'), tf.tensor1d([4], 'int32')], 0),
      tf.concat([tf.ones([3, 80], 'int32'), tf.zeros([3, 2], 'int32')], 1),
    ];
    const before = await Promise.all(cases().map((t) => t.data()));
    useInterleavedConcat();
    expect(tf.getKernel('Concat', 'wasm').kernelFunc.toString()).toContain('concatRuns');
    const after = await Promise.all(cases().map((t) => t.data()));
    for (let i = 0; i < before.length; i++) expect(Buffer.from(after[i].buffer, after[i].byteOffset, after[i].byteLength).equals(Buffer.from(before[i].buffer, before[i].byteOffset, before[i].byteLength))).toBe(true);
  });
});
