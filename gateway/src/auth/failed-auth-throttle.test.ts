import { AppError } from '@em/core';
import { startRedisConnection } from '@em/core/testing';
import type { Redis } from 'ioredis';
import { FailedAuthThrottle } from './failed-auth-throttle';

/** The Redis commands the throttle uses, in memory, counting the reads. */
function fakeRedis(counts = new Map<string, number>()): Redis & { reads: number } {
  const value = (key: string) => (counts.has(key) ? String(counts.get(key)) : null);
  const redis = {
    reads: 0,
    mget: async (...keys: string[]) => (redis.reads++, keys.map(value)),
    multi: () => {
      const ops: (() => number | string | null)[] = [];
      const chain = {
        incr: (key: string) => (ops.push(() => (counts.set(key, (counts.get(key) ?? 0) + 1), counts.get(key)!)), chain),
        expire: () => (ops.push(() => 1), chain),
        get: (key: string) => (ops.push(() => value(key)), chain),
        exec: async () => ops.map((op) => [null, op()]),
      };
      return chain;
    },
  };
  return redis as unknown as Redis & { reads: number };
}

const forbidden = () => Promise.reject(new AppError('FORBIDDEN', 'The API key is invalid'));

describe('FailedAuthThrottle', () => {
  it('answers 429 with a retry delay after the limit of failures, per address', async () => {
    const throttle = new FailedAuthThrottle(fakeRedis(), { AUTH_FAILURE_LIMIT: 3, AUTH_FAILURE_WINDOW_SECONDS: 60 });
    for (let i = 0; i < 3; i++)
      await expect(throttle.guard('198.51.100.7', forbidden)).rejects.toMatchObject({ status: 403 });
    const refused = await throttle.guard('198.51.100.7', async () => 'ok').catch((err: AppError) => err);
    expect(refused).toMatchObject({ status: 429 });
    expect((refused as AppError).details?.retryAfterSeconds).toBeGreaterThan(0);
    await expect(throttle.guard('198.51.100.8', async () => 'ok')).resolves.toBe('ok');
  });

  it('does not count successes or other errors', async () => {
    const throttle = new FailedAuthThrottle(fakeRedis(), { AUTH_FAILURE_LIMIT: 1, AUTH_FAILURE_WINDOW_SECONDS: 60 });
    await throttle.guard('198.51.100.7', async () => 'ok');
    await expect(
      throttle.guard('198.51.100.7', () => Promise.reject(new AppError('BAD_REQUEST', 'both'))),
    ).rejects.toMatchObject({ status: 400 });
    await expect(throttle.guard('198.51.100.7', async () => 'ok')).resolves.toBe('ok');
  });

  it('lets calls through when Redis fails', async () => {
    const broken = {
      mget: () => Promise.reject(new Error('down')),
      multi: () => ({
        incr: () => ({ expire: () => ({ get: () => ({ exec: () => Promise.reject(new Error('down')) }) }) }),
      }),
    } as unknown as Redis;
    const throttle = new FailedAuthThrottle(broken, { AUTH_FAILURE_LIMIT: 1, AUTH_FAILURE_WINDOW_SECONDS: 60 });
    await expect(throttle.guard('198.51.100.7', forbidden)).rejects.toMatchObject({ status: 403 });
    await expect(throttle.guard('198.51.100.7', async () => 'ok')).resolves.toBe('ok');
  });

  it('reads Redis at most once a second per address while it has no failures', async () => {
    const redis = fakeRedis();
    const throttle = new FailedAuthThrottle(redis, { AUTH_FAILURE_LIMIT: 3, AUTH_FAILURE_WINDOW_SECONDS: 60 });
    const start = 1_800_000_000_000;
    for (let i = 0; i < 50; i++) await throttle.assertAllowed('198.51.100.7', start + i * 10);
    expect(redis.reads).toBe(1);
    await throttle.assertAllowed('198.51.100.7', start + 1_001);
    expect(redis.reads).toBe(2);
  });

  it('refuses at once after its own failures, and within a second after failures seen by another gateway', async () => {
    const shared = new Map<string, number>();
    const limits = { AUTH_FAILURE_LIMIT: 2, AUTH_FAILURE_WINDOW_SECONDS: 60 };
    const here = new FailedAuthThrottle(fakeRedis(shared), limits);
    const elsewhere = new FailedAuthThrottle(fakeRedis(shared), limits);
    const start = 1_800_000_000_000;
    await here.assertAllowed('198.51.100.7', start);
    await elsewhere.recordFailure('198.51.100.7', start);
    await elsewhere.recordFailure('198.51.100.7', start);
    await expect(elsewhere.assertAllowed('198.51.100.7', start)).rejects.toMatchObject({ status: 429 });
    await expect(here.assertAllowed('198.51.100.7', start + 1_001)).rejects.toMatchObject({ status: 429 });
  });

  it('counts the previous window too: failures just before a window ends still refuse just after it', async () => {
    const throttle = new FailedAuthThrottle(fakeRedis(), { AUTH_FAILURE_LIMIT: 3, AUTH_FAILURE_WINDOW_SECONDS: 60 });
    const windowStart = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
    const address = '198.51.100.7';
    for (let i = 0; i < 2; i++) await throttle.recordFailure(address, windowStart + 59_000);
    await throttle.assertAllowed(address, windowStart + 61_000);
    await throttle.recordFailure(address, windowStart + 61_000);
    // Three failures within three seconds, across a boundary: refused until the first two are a window old.
    const refused = await throttle.assertAllowed(address, windowStart + 62_500).catch((err: AppError) => err);
    expect(refused).toMatchObject({ status: 429 });
    expect((refused as AppError).details?.retryAfterSeconds).toBe(58);
    await expect(throttle.assertAllowed(address, windowStart + 120_500)).resolves.toBeUndefined();
  });

  it('a window that reached the limit alone refuses through the next window too', async () => {
    const throttle = new FailedAuthThrottle(fakeRedis(), { AUTH_FAILURE_LIMIT: 2, AUTH_FAILURE_WINDOW_SECONDS: 60 });
    const windowStart = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
    const address = '198.51.100.7';
    for (let i = 0; i < 2; i++) await throttle.recordFailure(address, windowStart + 10_000);
    const refused = await throttle.assertAllowed(address, windowStart + 10_000).catch((err: AppError) => err);
    expect((refused as AppError).details?.retryAfterSeconds).toBe(110);
    await expect(throttle.assertAllowed(address, windowStart + 100_000)).rejects.toMatchObject({ status: 429 });
    await expect(throttle.assertAllowed(address, windowStart + 120_000)).resolves.toBeUndefined();
  });
});

describe('FailedAuthThrottle, calls that look their credential up, on a real redis-server', () => {
  let server: Awaited<ReturnType<typeof startRedisConnection>>;
  let redis: Redis;
  beforeAll(async () => {
    server = await startRedisConnection();
    redis = server.redis;
  });
  afterAll(() => server.stop());
  const limits = { AUTH_FAILURE_LIMIT: 3, AUTH_FAILURE_WINDOW_SECONDS: 60 };
  let lookups = 0;
  const lookUpInvented = async () => {
    lookups += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    throw new AppError('FORBIDDEN', 'The API key is invalid');
  };
  beforeEach(() => (lookups = 0));

  it('of failing calls sent together, lets no more than the limit look up their credential', async () => {
    const throttle = new FailedAuthThrottle(redis, limits);
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, () =>
        throttle.guard('198.51.100.20', lookUpInvented, { looksUp: true }).catch((err: AppError) => err.status),
      ),
    );
    expect(lookups).toBe(3);
    expect(outcomes.filter((status) => status === 403)).toHaveLength(3);
    expect(outcomes.filter((status) => status === 429)).toHaveLength(9);
    // Calls the key cache answers are refused too, and another gateway refuses the address as well.
    await expect(throttle.guard('198.51.100.20', async () => 'ok')).rejects.toMatchObject({ status: 429 });
    await expect(new FailedAuthThrottle(redis, limits).assertAllowed('198.51.100.20')).rejects.toMatchObject({
      status: 429,
    });
  });

  it('takes back the count of a lookup that succeeds or fails for another reason', async () => {
    const throttle = new FailedAuthThrottle(redis, limits);
    for (let i = 0; i < 10; i++)
      await expect(throttle.guard('198.51.100.21', async () => 'ok', { looksUp: true })).resolves.toBe('ok');
    for (let i = 0; i < 10; i++)
      await expect(
        throttle.guard('198.51.100.21', () => Promise.reject(new AppError('BAD_REQUEST', 'both')), { looksUp: true }),
      ).rejects.toMatchObject({ status: 400 });
    const failures = await Promise.all(
      Array.from({ length: 5 }, () =>
        throttle.guard('198.51.100.21', lookUpInvented, { looksUp: true }).catch((err: AppError) => err.status),
      ),
    );
    expect(failures.sort()).toEqual([403, 403, 403, 429, 429]);
  });
});

describe('FailedAuthThrottle, an IPv6 caller', () => {
  it("counts an IPv6 address's failures against its /64, so a caller cannot step through its own network", async () => {
    const throttle = new FailedAuthThrottle(fakeRedis(), { AUTH_FAILURE_LIMIT: 3, AUTH_FAILURE_WINDOW_SECONDS: 60 });
    for (const host of ['1', '2', 'ffff:1:2'])
      await expect(throttle.guard(`2001:db8:5:6::${host}`, forbidden)).rejects.toMatchObject({ status: 403 });
    await expect(throttle.guard('2001:db8:5:6:abcd::9', async () => 'ok')).rejects.toMatchObject({ status: 429 });
    await expect(throttle.guard('2001:db8:5:7::1', async () => 'ok')).resolves.toBe('ok');
  });
});
