import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

const PREFIX = 'selfie-image:';

/**
 * A selfie's bytes on their way to the ml-worker, as one binary Redis value beside its job: in the
 * job's JSON they travelled base64 (a third larger), were stringified, measured and copied by the
 * producer, kept in the job for its lifetime and parsed and decoded again by the worker.
 */
export class SelfieImages {
  constructor(private readonly redis: Pick<Redis, 'set' | 'getBuffer' | 'del'>) {}

  /** Stores the bytes for at most `ttlMs` (a producer that dies leaves nothing behind); answers their key. */
  async put(image: Buffer, ttlMs: number): Promise<string> {
    const key = `${PREFIX}${randomUUID()}`;
    await this.redis.set(key, image, 'PX', Math.max(1, Math.round(ttlMs)));
    return key;
  }

  /** The bytes under a key of put(), or null once removed or expired; any other key is refused. */
  async read(key: string): Promise<Buffer | null> {
    if (!key.startsWith(PREFIX)) throw new Error('not a selfie image key');
    return this.redis.getBuffer(key);
  }

  async remove(key: string): Promise<void> {
    await this.redis.del(key);
  }
}
