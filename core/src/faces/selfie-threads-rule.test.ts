import { defaultSelfieThreads, thisMachine } from './selfie-threads-rule';

const GB = 1024 ** 3;

describe('defaultSelfieThreads', () => {
  it('gives every core a thread with 4 GB free, half the cores with less', () => {
    expect(defaultSelfieThreads({ cores: 2, freeBytes: 4 * GB })).toEqual({ threads: 2, rule: 'cores' });
    expect(defaultSelfieThreads({ cores: 2, freeBytes: 4 * GB - 1 })).toEqual({ threads: 1, rule: 'half the cores' });
    expect(defaultSelfieThreads({ cores: 4, freeBytes: 2 * GB })).toEqual({ threads: 2, rule: 'half the cores' });
  });

  it('at least one thread, at most four', () => {
    expect(defaultSelfieThreads({ cores: 1, freeBytes: 0 })).toEqual({ threads: 1, rule: 'half the cores' });
    expect(defaultSelfieThreads({ cores: 1, freeBytes: 16 * GB })).toEqual({ threads: 1, rule: 'cores' });
    expect(defaultSelfieThreads({ cores: 32, freeBytes: 64 * GB })).toEqual({ threads: 4, rule: 'cores' });
    expect(defaultSelfieThreads({ cores: 32, freeBytes: GB })).toEqual({ threads: 4, rule: 'half the cores' });
  });

  it("reads this machine's cores and a positive free memory", () => {
    const machine = thisMachine();
    expect(machine.cores).toBeGreaterThanOrEqual(1);
    expect(machine.freeBytes).toBeGreaterThan(0);
  });
});
