import type { Redis } from 'ioredis';

/**
 * Publishes one transition on a Redis pub/sub channel, stamped with its time (`at`). Best effort: the row in
 * Postgres is the truth, and every subscriber reads it again (the page's next read, a subscription's start).
 */
export async function announceStatus(redis: Redis, channel: string, transition: object): Promise<void> {
  try {
    await redis.publish(channel, JSON.stringify({ ...transition, at: new Date().toISOString() }));
  } catch {
    // A missed notification is recovered by the subscriber's next read of the record.
  }
}
