import { createLogger } from './logger';
import { stopOnSignals } from './process-signals';

describe('stopOnSignals', () => {
  const logger = createLogger('test');
  let exits: number[];
  let before: { term: NodeJS.SignalsListener[]; int: NodeJS.SignalsListener[] };

  beforeEach(() => {
    exits = [];
    jest.spyOn(process, 'exit').mockImplementation(((code: number) => void exits.push(code)) as never);
    before = { term: process.listeners('SIGTERM'), int: process.listeners('SIGINT') };
  });
  afterEach(() => {
    for (const l of process.listeners('SIGTERM')) if (!before.term.includes(l)) process.off('SIGTERM', l);
    for (const l of process.listeners('SIGINT')) if (!before.int.includes(l)) process.off('SIGINT', l);
    jest.restoreAllMocks();
  });

  const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

  it('stops once, however many signals arrive while stopping, then exits 0', async () => {
    let stops = 0;
    stopOnSignals(logger, async () => {
      stops++;
      await settle();
    });
    process.emit('SIGTERM', 'SIGTERM');
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGTERM', 'SIGTERM');
    await settle();
    await settle();
    expect(stops).toBe(1);
    expect(exits).toEqual([0]);
  });

  it('exits 1 when stopping fails', async () => {
    stopOnSignals(logger, () => Promise.reject(new Error('pool would not close')));
    process.emit('SIGINT', 'SIGINT');
    await settle();
    expect(exits).toEqual([1]);
  });
});
