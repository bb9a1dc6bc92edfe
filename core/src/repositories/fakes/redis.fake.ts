import type { Redis } from 'ioredis';

/** The Redis pub/sub side services use: records what was published on which channel. */
export class RecordingPublisher {
  readonly published: Array<{ channel: string; message: Record<string, unknown> }> = [];

  get asRedis(): Redis {
    return this as unknown as Redis;
  }

  async publish(channel: string, message: string): Promise<number> {
    this.published.push({ channel, message: JSON.parse(message) as Record<string, unknown> });
    return 1;
  }

  statuses(): unknown[] {
    return this.published.map((p) => p.message.status);
  }
}
