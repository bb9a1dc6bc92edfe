import type { Redis } from 'ioredis';

/** The two face indexes: faces on photos (selfie search) and faces in video frames (clipping). */
export type FaceIndexKind = 'photos' | 'videos';

/** The Redis key of an event's face revision counter. */
export const faceIndexRevisionKey = (kind: FaceIndexKind, eventId: number) => `faces:rev:${kind}:${eventId}`;

/**
 * Per-event revision counters in Redis: writers of faces bump them, in-memory face indexes read
 * them to know there is something new to load. A failure to reach Redis is not fatal to either
 * side: indexes also look for new faces on a timer.
 */
export class FaceIndexRevisions {
  constructor(private readonly redis: Redis) {}

  async bump(kind: FaceIndexKind, eventId: number): Promise<void> {
    await this.redis.incr(faceIndexRevisionKey(kind, eventId));
  }

  /** The current revision, or null when Redis cannot say. */
  async read(kind: FaceIndexKind, eventId: number): Promise<string | null> {
    try {
      return (await this.redis.get(faceIndexRevisionKey(kind, eventId))) ?? '0';
    } catch {
      return null;
    }
  }
}
