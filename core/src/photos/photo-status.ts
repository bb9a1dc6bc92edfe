import type { Redis } from 'ioredis';
import { announceStatus } from '../status-announcement';

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

/** Announces a transition on the event's channel (the gateway's photoStatus subscriptions listen). */
export function photoStatusPublisher(redis: Redis): AnnouncePhotoStatus {
  return (event) => announceStatus(redis, photoStatusChannel(event.eventId), event);
}
