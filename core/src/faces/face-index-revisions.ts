import type { Redis } from 'ioredis';
import { faceIndexRevisionKey } from '../jobs';

/**
 * Per-event revision counters in Redis: writers of faces bump them, in-memory face indexes read
 * them to know there is something new to load. A failure to reach Redis is not fatal to either
 * side: indexes also look for new faces on a timer.
 */
export class FaceIndexRevisions {
  constructor(private readonly redis: Redis) {}

  async bump(eventId: number): Promise<void> {
    await this.redis.incr(faceIndexRevisionKey(eventId));
  }

  /** The current revision, or null when Redis cannot say. */
  async read(eventId: number): Promise<string | null> {
    try {
      return (await this.redis.get(faceIndexRevisionKey(eventId))) ?? '0';
    } catch {
      return null;
    }
  }
}
