import { getPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import { lowerThreadPriority } from './background-priority';

/** A thread that reports its own nice value once asked (so it can be started before or after the change). */
function reporter(): { worker: Worker; nice: () => Promise<number> } {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads'); parentPort.on('message', () => parentPort.postMessage(require('node:os').getPriority(0)));`,
    { eval: true },
  );
  return { worker, nice: () => new Promise((resolve) => (worker.once('message', resolve), worker.postMessage('?'))) };
}

(process.platform === 'linux' ? describe : describe.skip)(
  'lowerThreadPriority (Linux: a nice value per thread)',
  () => {
    it('lowers the calling thread and the threads it starts afterwards, not the threads started before', async () => {
      const start = getPriority(0);
      const before = reporter();
      const lowered = lowerThreadPriority(2);
      const after = reporter();
      try {
        expect(lowered).toBe(Math.min(19, start + 2));
        expect(getPriority(0)).toBe(lowered);
        expect(await before.nice()).toBe(start);
        expect(await after.nice()).toBe(lowered);
      } finally {
        await Promise.all([before.worker.terminate(), after.worker.terminate()]);
      }
    });

    it('does nothing for 0 steps', () => {
      const start = getPriority(0);
      expect(lowerThreadPriority(0)).toBeNull();
      expect(getPriority(0)).toBe(start);
    });
  },
);
