import { ContentVersionReader, ContentVersions } from './content-version';
import type { Redis } from 'ioredis';
import { InMemoryEventsRepository } from './repositories/fakes/events.fake';
import { startRedisConnection } from './test-support/redis-server';

describe('content versions in Redis', () => {
  let redis: Awaited<ReturnType<typeof startRedisConnection>>;
  let connection: Redis;

  beforeAll(async () => {
    redis = await startRedisConnection();
    connection = redis.redis;
  });
  afterAll(() => redis.stop());

  it('a reader sees one token until a bump, then a new one; tokens never repeat', async () => {
    const events = new InMemoryEventsRepository();
    events.add({ id: 7, orgId: 1 });
    const versions = new ContentVersions(events, connection);
    const reader = new ContentVersionReader(connection);

    const initial = await reader.current(7);
    expect(initial).toMatch(/^r[\w-]{12}$/);
    expect(await new ContentVersionReader(connection).current(7)).toBe(initial);
    await versions.bumpContentVersion(7);
    expect(await reader.current(7)).toBe('v2');
    await versions.bumpContentVersion(7);
    expect(await reader.current(7)).toBe('v3');
    // An unknown event is not bumped (no row), and its token stays.
    const unknown = await reader.current(8);
    await versions.bumpContentVersion(8);
    expect(await reader.current(8)).toBe(unknown);
    expect(await connection.ttl('event-content-version:7')).toBeGreaterThan(0);
  });

  it('while Redis is down, a reader answers null at once and a bump does not fail', async () => {
    const events = new InMemoryEventsRepository();
    events.add({ id: 9, orgId: 1 });
    redis.stop();
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    expect(await new ContentVersionReader(connection).current(9)).toBeNull();
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(new ContentVersions(events, connection).bumpContentVersion(9)).resolves.toBeUndefined();
    expect(events.contentVersions.get(9)).toBe(2);
  });
});
