import type { Redis } from 'ioredis';

/** How many mails a key (an organisation) sent in a window that starts with its first mail. */
export interface MailsSentCounter {
  count(key: string): Promise<number>;
  add(key: string, windowSeconds: number): Promise<void>;
}

export class RedisMailsSentCounter implements MailsSentCounter {
  constructor(private readonly redis: Redis) {}

  async count(key: string) {
    return Number((await this.redis.get(key)) ?? 0);
  }

  async add(key: string, windowSeconds: number) {
    // The window starts at the first mail; later ones do not extend it.
    await this.redis.multi().incr(key).expire(key, windowSeconds, 'NX').exec();
  }
}

/** Counts in this process: unit tests. */
export class MemoryMailsSentCounter implements MailsSentCounter {
  private readonly counts = new Map<string, { count: number; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async count(key: string) {
    const entry = this.counts.get(key);
    return entry && entry.until > this.now() ? entry.count : 0;
  }

  async add(key: string, windowSeconds: number) {
    const entry = this.counts.get(key);
    if (entry && entry.until > this.now()) entry.count += 1;
    else this.counts.set(key, { count: 1, until: this.now() + windowSeconds * 1000 });
  }
}
