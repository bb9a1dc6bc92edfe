import { FaceMatrix } from './face-matrix';

function vector(seed: number): Float32Array {
  const v = new Float32Array(128);
  let x = seed * 9301 + 49297;
  for (let i = 0; i < 128; i++) {
    x = (x * 9301 + 49297) % 233280;
    v[i] = x / 233280 / 4;
  }
  return v;
}

describe('FaceMatrix', () => {
  it('finds the rows within the distance, nearest first, and nothing farther', () => {
    const m = new FaceMatrix(2);
    const target = vector(1);
    for (let i = 0; i < 50; i++) m.add(vector(i + 100));
    const near = Float32Array.from(target, (x, i) => (i === 0 ? x + 0.3 : x));
    const nearer = Float32Array.from(target, (x, i) => (i === 0 ? x + 0.1 : x));
    const rowNear = m.add(near);
    const rowNearer = m.add(nearer);
    expect(m.size).toBe(52);
    const found = m.within(target, 0.35, 100);
    expect(found.map((f) => f.row)).toEqual([rowNearer, rowNear]);
    expect(found[0].distance).toBeCloseTo(0.1, 4);
    expect(found[1].distance).toBeCloseTo(0.3, 4);
    expect(m.within(target, 0.2, 100).map((f) => f.row)).toEqual([rowNearer]);
    expect(m.within(target, 0.35, 1).map((f) => f.row)).toEqual([rowNearer]);
  });

  it('answers an empty result on an empty matrix', () => {
    expect(new FaceMatrix().within(vector(3), 1, 10)).toEqual([]);
  });

  it('runs on usearch here (the prebuilt binary loads)', () => {
    expect(FaceMatrix.engine).toBe('usearch');
  });
});
