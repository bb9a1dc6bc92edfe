import Redis from 'ioredis';
import { spawn, ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { RateLimiter } from './rate-limiter';

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Against a real redis-server (the limiter's counters are a Lua script). */
describe('RateLimiter', () => {
  let server: ChildProcess;
  let redis: Redis;
  const limits = { RATE_LIMIT_WINDOW_SECONDS: 60, RATE_LIMIT_READS: 3, RATE_LIMIT_MATCHING: 1 };

  beforeAll(async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    server = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    // redis-server may take seconds to listen on a busy machine.
    for (let tries = 0; !(await listening(port)); tries++) {
      if (tries > 200) throw new Error('redis-server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    redis = new Redis({ port });
    await redis.ping();
  }, 30_000);
  afterAll(async () => {
    redis.disconnect();
    server.kill();
  });

  it('allows the limit per window and class, then refuses with a retry delay', async () => {
    const limiter = new RateLimiter(redis, limits);
    const now = 1_800_000_000_000;
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume('read', 'key-1', undefined, 1, now));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions[2].remaining).toBe(0);
    expect(decisions[3].retryAfterSeconds).toBeGreaterThan(0);
    expect((await limiter.consume('matching', 'key-1', undefined, 1, now)).allowed).toBe(true);
    expect((await limiter.consume('read', 'key-2', undefined, 1, now)).allowed).toBe(true);
    expect((await limiter.consume('read', 'key-1', undefined, 1, now + 60_000)).allowed).toBe(true);
  });

  it('charges several units at once and gives each window an expiry', async () => {
    const limiter = new RateLimiter(redis, limits);
    const now = 1_800_000_000_000;
    expect((await limiter.consume('matching', 'key-3', 5, 3, now)).remaining).toBe(2);
    expect((await limiter.consume('matching', 'key-3', 5, 3, now)).allowed).toBe(false);
    const keys = await redis.keys('rl:matching:key-3:*');
    expect(await redis.ttl(keys[0])).toBeGreaterThan(55);
  });

  it("charges a grant's own budget and its shared ceiling in one script; a visitor refused spends nothing of it", async () => {
    const limiter = new RateLimiter(redis, limits);
    const now = 1_800_000_000_000;
    const grant = (visitor: string) => ({
      window: 60,
      subject: `key:5:client:${visitor}`,
      limit: 2,
      shared: { subject: 'key:5', limit: 3 },
    });
    const allowed = async (visitor: string) => (await limiter.consumeGrant('read', grant(visitor), 1, now)).allowed;
    expect([await allowed('a'), await allowed('a'), await allowed('a')]).toEqual([true, true, false]);
    const shared = (await redis.keys('rl:read:key:5:*')).filter((k) => !k.includes('client'));
    expect(await redis.get(shared[0])).toBe('2');
    expect(await redis.ttl(shared[0])).toBeGreaterThan(55);
    // Another visitor has a budget of their own, until the key's ceiling is spent.
    expect(await allowed('b')).toBe(true);
    const refused = await limiter.consumeGrant('read', grant('c'), 1, now);
    expect(refused.allowed).toBe(false);
    expect(refused).toMatchObject({ limit: 3, remaining: 0 });
    // A grant without a shared ceiling is its own budget alone.
    expect((await limiter.consumeGrant('read', { window: 60, subject: 'key:6', limit: 1 }, 1, now)).allowed).toBe(true);
    expect((await limiter.consumeGrant('read', { window: 60, subject: 'key:6', limit: 1 }, 1, now)).allowed).toBe(
      false,
    );
  });

  it('charges a grant only while the condition key holds the value it was given at, in one script', async () => {
    const limiter = new RateLimiter(redis, limits);
    const now = 1_800_000_000_000;
    const grant = { window: 60, subject: 'key:8:client:a', limit: 2, shared: { subject: 'key:8', limit: 3 } };
    const at = (value: string) => limiter.consumeGrantIf('read', grant, { key: 'version:8', value }, 1, now);
    expect(await at('v1')).toEqual({ stale: true, current: null }); // no version: nothing charged
    await redis.set('version:8', 'v1');
    expect(await at('v1')).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
    expect(await at('v0')).toEqual({ stale: true, current: 'v1' });
    expect(await at('v1')).toMatchObject({ allowed: true, remaining: 1 });
    expect(await at('v1')).toMatchObject({ allowed: false, limit: 2, remaining: 0 }); // the visitor's own budget
    const counters = await redis.keys('rl:read:key:8*');
    expect((await Promise.all(counters.sort().map((k) => redis.get(k)))).map(Number)).toEqual([2, 3]);
    // Without a shared ceiling, the own budget alone.
    const own = { window: 60, subject: 'key:9', limit: 1 };
    const charge = () => limiter.consumeGrantIf('read', own, { key: 'version:8', value: 'v1' }, 1, now);
    expect(await charge()).toMatchObject({ allowed: true, limit: 1 });
    expect(await charge()).toMatchObject({ allowed: false, limit: 1 });
  });

  it('charges nothing, in the same script, while the failures of this window and the last reach the limit', async () => {
    const limiter = new RateLimiter(redis, limits);
    const now = 1_800_000_000_000;
    await redis.set('version:10', 'v1');
    const grant = { window: 60, subject: 'key:10:client:b', limit: 5, shared: { subject: 'key:10', limit: 5 } };
    const failures = { current: 'authfail:198.51.100.9:2', previous: 'authfail:198.51.100.9:1', limit: 2 };
    const charge = () => limiter.consumeGrantIf('read', grant, { key: 'version:10', value: 'v1' }, 1, now, failures);
    expect(await charge()).toMatchObject({ allowed: true, remaining: 4 }); // no failures yet
    await redis.set(failures.previous, '1');
    expect(await charge()).toMatchObject({ allowed: true, remaining: 3 });
    await redis.set(failures.current, '1');
    expect(await charge()).toEqual({ stale: true, current: null });
    await redis.del(failures.previous);
    expect(await charge()).toMatchObject({ allowed: true, remaining: 2 });
    await redis.set(failures.current, '2');
    expect(await charge()).toEqual({ stale: true, current: null });
    expect(Number(await redis.get(`rl:read:key:10:${Math.floor(now / 1000 / 60)}`))).toBe(3);
  });

  it('lets calls through when Redis fails', async () => {
    const broken = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
    const errors: unknown[] = [];
    const limiter = new RateLimiter(broken, limits, (err) => errors.push(err));
    expect((await limiter.consume('read', 'key-4')).allowed).toBe(true);
    const grant = { window: 60, subject: 'key-4', limit: 1, shared: { subject: 'key', limit: 1 } };
    expect((await limiter.consumeGrant('read', grant)).allowed).toBe(true);
    expect(errors).toHaveLength(2);
    // The conditional charge has a slower path to fall back on: it says that Redis failed.
    await expect(limiter.consumeGrantIf('read', grant, { key: 'v', value: 'v1' })).rejects.toThrow();
    broken.disconnect();
  });
});
