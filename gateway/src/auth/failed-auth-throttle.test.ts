import { AppError } from '@em/core';
import type { Redis } from 'ioredis';
import { FailedAuthThrottle } from './failed-auth-throttle';

/** The three Redis commands the throttle uses, in memory. */
function fakeRedis(): Redis {
  const counts = new Map<string, number>();
  return {
    get: async (key: string) => (counts.has(key) ? String(counts.get(key)) : null),
    multi: () => {
      const ops: (() => void)[] = [];
      const chain = {
        incr: (key: string) => (ops.push(() => counts.set(key, (counts.get(key) ?? 0) + 1)), chain),
        expire: () => chain,
        exec: async () => (ops.forEach((op) => op()), []),
      };
      return chain;
    },
  } as unknown as Redis;
}

const forbidden = () => Promise.reject(new AppError('FORBIDDEN', 'The API key is invalid'));

describe('FailedAuthThrottle', () => {
  it('answers 429 with a retry delay after the limit of failures, per address', async () => {
    const throttle = new FailedAuthThrottle(fakeRedis(), { AUTH_FAILURE_LIMIT: 3, AUTH_FAILURE_WINDOW_SECONDS: 60 });
    for (let i = 0; i < 3; i++) await expect(throttle.guard('198.51.100.7', forbidden)).rejects.toMatchObject({ status: 403 });
    const refused = await throttle.guard('198.51.100.7', async () => 'ok').catch((err: AppError) => err);
    expect(refused).toMatchObject({ status: 429 });
    expect((refused as AppError).details?.retryAfterSeconds).toBeGreaterThan(0);
    await expect(throttle.guard('198.51.100.8', async () => 'ok')).resolves.toBe('ok');
  });

  it('does not count successes or other errors', async () => {
    const throttle = new FailedAuthThrottle(fakeRedis(), { AUTH_FAILURE_LIMIT: 1, AUTH_FAILURE_WINDOW_SECONDS: 60 });
    await throttle.guard('198.51.100.7', async () => 'ok');
    await expect(throttle.guard('198.51.100.7', () => Promise.reject(new AppError('BAD_REQUEST', 'both')))).rejects.toMatchObject({ status: 400 });
    await expect(throttle.guard('198.51.100.7', async () => 'ok')).resolves.toBe('ok');
  });

  it('lets calls through when Redis fails', async () => {
    const broken = { get: () => Promise.reject(new Error('down')), multi: () => ({ incr: () => ({ expire: () => ({ exec: () => Promise.reject(new Error('down')) }) }) }) } as unknown as Redis;
    const throttle = new FailedAuthThrottle(broken, { AUTH_FAILURE_LIMIT: 1, AUTH_FAILURE_WINDOW_SECONDS: 60 });
    await expect(throttle.guard('198.51.100.7', forbidden)).rejects.toMatchObject({ status: 403 });
    await expect(throttle.guard('198.51.100.7', async () => 'ok')).resolves.toBe('ok');
  });
});
