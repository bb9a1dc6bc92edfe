import type { Redis } from 'ioredis';

/** One transition of a photo in the pipeline, as the dashboard's subscription receives it. */
export interface PhotoStatusEvent {
  eventId: number;
  photoId: string;
  status: 'queued' | 'processing' | 'processed' | 'failed';
  /** Why it failed, as the organiser reads it; null otherwise. */
  reason: string | null;
  /** ISO time of the transition. */
  at: string;
}

export const PHOTO_STATUS_CHANNEL_PREFIX = 'photo-status:';
export const photoStatusChannel = (eventId: number) => `${PHOTO_STATUS_CHANNEL_PREFIX}${eventId}`;

/** How a process announces a photo's transition (publishPhotoStatus on Redis; nothing in unit tests). */
export type AnnouncePhotoStatus = (event: Omit<PhotoStatusEvent, 'at'>) => Promise<void>;

/**
 * Announces a transition on Redis pub/sub, one channel per event (the gateway's photoStatus
 * subscriptions listen). Best effort: the photo row is the truth, and the page reads the counts from it.
 */
export function photoStatusPublisher(redis: Redis): AnnouncePhotoStatus {
  return async (event) => {
    try {
      await redis.publish(
        photoStatusChannel(event.eventId),
        JSON.stringify({ ...event, at: new Date().toISOString() }),
      );
    } catch {
      // A missed notification is recovered by the page's next read of the counts.
    }
  };
}
