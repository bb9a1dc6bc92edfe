import path from 'node:path';
import { concatInto, useFastConcat } from './fast-concat';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const tf = require('@tensorflow/tfjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const wasm = require('@tensorflow/tfjs-backend-wasm');

describe('concatInto', () => {
  it('interleaves the inputs as a concatenation along the axis does (inner sizes 1, 2 and a long run)', () => {
    const a = Int32Array.from([1, 2, 3]); // 3 rows of 1
    const b = Int32Array.from([10, 11, 20, 21, 30, 31]); // 3 rows of 2
    const c = Int32Array.from({ length: 3 * 100 }, (_, i) => 1000 + i); // 3 rows of 100
    const out = new Int32Array(3 * 103);
    concatInto([a, b, c], [1, 2, 100], 3, out);
    const expected = [0, 1, 2].flatMap((r) => [a[r], b[2 * r], b[2 * r + 1], ...c.subarray(100 * r, 100 * r + 100)]);
    expect([...out]).toEqual(expected);
  });
});

describe('useFastConcat', () => {
  beforeAll(async () => {
    wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`);
    await tf.setBackend('wasm');
    await tf.ready();
  });

  it('gives what the wasm backend gave: channels joined (face-api mean subtraction), rows joined (padding to a square), ints', async () => {
    const plane = (v: number) => tf.fill([1, 9, 7, 1], v, 'float32');
    const image = tf.tensor4d(
      Float32Array.from({ length: 9 * 7 * 3 }, (_, i) => i * 0.5),
      [1, 9, 7, 3],
    );
    const ints = tf.tensor2d(
      Int32Array.from({ length: 12 }, (_, i) => i),
      [4, 3],
      'int32',
    );
    const cases = () => [
      tf.concat([plane(1), plane(2), plane(3)], 3),
      tf.concat([image, tf.zeros([1, 2, 7, 3])], 1),
      tf.concat([image, image], 2),
      tf.concat([ints, ints, ints], 1),
      tf.concat([ints, ints], 0),
    ];
    const before = await Promise.all(
      cases().map(async (t: any) => ({ shape: t.shape, dtype: t.dtype, values: [...(await t.data())] })),
    );
    useFastConcat();
    expect(tf.getKernel('Concat', 'wasm').kernelFunc.toString()).toContain('concatInto');
    const after = await Promise.all(
      cases().map(async (t: any) => ({ shape: t.shape, dtype: t.dtype, values: [...(await t.data())] })),
    );
    expect(after).toEqual(before);
  });
});
