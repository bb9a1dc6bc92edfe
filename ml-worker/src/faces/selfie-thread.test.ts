import { Worker } from 'node:worker_threads';
import { SelfieThreads } from './selfie-thread';

/** A stand-in thread: ready at once, answers each selfie after `ms` with its own number as the descriptor (one selfie at a time, as tfjs-wasm). */
const fakeThread =
  (name: number, ms: number, opts: { failToStart?: boolean; dieOnFirst?: boolean } = {}) =>
  () =>
    new Worker(
      `const { parentPort } = require('node:worker_threads');
     if (${!!opts.failToStart}) process.exit(3);
     let busyUntil = 0;
     parentPort.on('message', ({ id }) => {
       if (${!!opts.dieOnFirst}) process.exit(4);
       const start = Math.max(Date.now(), busyUntil);
       busyUntil = start + ${ms};
       setTimeout(() => parentPort.postMessage({ id, descriptor: [${name}], facesFound: 1, modelMs: busyUntil - start }), busyUntil - Date.now());
     });
     parentPort.postMessage({ ready: true });`,
      { eval: true },
    );

const quiet = { warn: () => undefined, error: () => undefined };
const fallback = { embedSelfie: async () => ({ descriptor: new Float32Array([-1]), facesFound: 1 }) };

function poolOf(spawns: Array<() => Worker>): SelfieThreads {
  let n = 0;
  return new SelfieThreads(fallback, quiet, spawns.length, () => spawns[n++]());
}

describe('SelfieThreads', () => {
  let pool: SelfieThreads | undefined;
  afterEach(async () => pool?.close());

  it('spreads concurrent selfies over its threads: 4 selfies on 2 threads take two turns, not four', async () => {
    pool = poolOf([fakeThread(1, 150), fakeThread(2, 150)]);
    expect(await pool.start()).toBe(2);
    const started = Date.now();
    const answers = await Promise.all([1, 2, 3, 4].map(() => pool!.embedSelfie(Buffer.from('x'))));
    const elapsed = Date.now() - started;
    expect(answers.map((a) => a.descriptor![0]).sort()).toEqual([1, 1, 2, 2]);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(550);
  });

  it('one thread serves concurrent selfies one after the other (the queueing the pool removes)', async () => {
    pool = poolOf([fakeThread(1, 100)]);
    await pool.start();
    const answers = await Promise.all([1, 2, 3].map(() => pool!.embedSelfie(Buffer.from('x'))));
    expect(answers.map((a) => a.modelMs).sort((a, b) => a! - b!)).toEqual([100, 200, 300]);
  });

  it('a thread that cannot start is left out; the others serve', async () => {
    pool = poolOf([fakeThread(1, 10, { failToStart: true }), fakeThread(2, 10)]);
    expect(await pool.start()).toBe(1);
    expect((await pool.embedSelfie(Buffer.from('x'))).descriptor![0]).toBe(2);
  });

  it("a thread that dies fails its selfies, leaves the pool, and with none left the main thread's analyzer serves", async () => {
    pool = poolOf([fakeThread(1, 10, { dieOnFirst: true })]);
    expect(await pool.start()).toBe(1);
    await expect(pool.embedSelfie(Buffer.from('x'))).rejects.toThrow(/exited/);
    expect(pool.running).toBe(0);
    expect((await pool.embedSelfie(Buffer.from('x'))).descriptor![0]).toBe(-1);
  });
});
