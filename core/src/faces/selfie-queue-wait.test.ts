import {
  DEFAULT_MS_PER_SELFIE,
  estimatedSelfieWaitMs,
  RecentSelfieTime,
  selfieQueueVerdict,
} from './selfie-queue-wait';

describe('selfieQueueVerdict', () => {
  const state = { waiting: 0, active: 0, workers: 1, msPerSelfie: 1000 };

  it('estimates the selfies ahead shared by the workers, then its own', () => {
    expect(estimatedSelfieWaitMs(state)).toBe(1000);
    expect(estimatedSelfieWaitMs({ ...state, waiting: 9, active: 1 })).toBe(11_000);
    expect(estimatedSelfieWaitMs({ ...state, waiting: 9, active: 1, workers: 2 })).toBe(6000);
    // No worker counted (between two listings): as one, never a division by zero.
    expect(estimatedSelfieWaitMs({ ...state, waiting: 3, workers: 0 })).toBe(4000);
  });

  it('admits a selfie whose wait fits in 0.8 of the timeout, and refuses the next with the excess as Retry-After', () => {
    expect(selfieQueueVerdict({ ...state, waiting: 23 }, 30_000)).toEqual({ admitted: true, waitMs: 24_000 });
    expect(selfieQueueVerdict({ ...state, waiting: 24 }, 30_000)).toEqual({
      admitted: false,
      waitMs: 25_000,
      retryAfterSeconds: 1,
    });
    // Two workers take twice the queue; a long queue is told its excess, at most a minute.
    expect(selfieQueueVerdict({ ...state, waiting: 40, workers: 2 }, 30_000).admitted).toBe(true);
    expect(selfieQueueVerdict({ ...state, waiting: 60, workers: 2 }, 30_000)).toMatchObject({ retryAfterSeconds: 7 });
    expect(selfieQueueVerdict({ ...state, waiting: 5000 }, 30_000)).toMatchObject({ retryAfterSeconds: 60 });
  });
});

describe('RecentSelfieTime', () => {
  const fakeRedis = () => {
    const values = new Map<string, string>();
    return {
      values,
      get: async (key: string) => values.get(key) ?? null,
      set: async (key: string, value: string) => void values.set(key, value),
    };
  };

  it('assumes the default until a reply is seen, then follows a moving average of the replies', async () => {
    const recent = new RecentSelfieTime(fakeRedis() as never);
    expect(await recent.msPerSelfie()).toBe(DEFAULT_MS_PER_SELFIE);
    recent.observe(400);
    expect(await recent.msPerSelfie()).toBe(400);
    for (let i = 0; i < 10; i++) recent.observe(2000);
    expect(await recent.msPerSelfie()).toBeGreaterThan(1900);
    // A reply without a usable time changes nothing.
    recent.observe(NaN);
    recent.observe(0);
    expect(await recent.msPerSelfie()).toBeGreaterThan(1900);
  });

  it('a process that has embedded nothing yet reads the average another process shared', async () => {
    const redis = fakeRedis();
    new RecentSelfieTime(redis as never).observe(1500);
    await new Promise((r) => setImmediate(r));
    expect(await new RecentSelfieTime(redis as never).msPerSelfie()).toBe(1500);
  });
});
