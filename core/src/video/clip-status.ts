import type { Redis } from 'ioredis';
import { ClipRequestStatus } from '../db/entities';

/** One transition of a clipping request, as subscribers receive it. */
export interface ClipStatusEvent {
  requestId: string;
  eventId: number;
  status: ClipRequestStatus;
  error: string | null;
  /** ISO time of the transition. */
  at: string;
}

export const CLIP_STATUS_CHANNEL_PREFIX = 'clip-status:';
export const clipStatusChannel = (requestId: string) => `${CLIP_STATUS_CHANNEL_PREFIX}${requestId}`;

/** Every status except `processing` ends the request (the spec's terminal states). */
export const isTerminalClipStatus = (status: ClipRequestStatus) => status !== 'processing';

/**
 * Announces a transition on Redis pub/sub (the gateway's subscriptions listen). Best effort: the
 * record in Postgres is the truth, and a subscriber reads it when it starts.
 */
export async function publishClipStatus(redis: Redis, event: Omit<ClipStatusEvent, 'at'>): Promise<void> {
  try {
    await redis.publish(clipStatusChannel(event.requestId), JSON.stringify({ ...event, at: new Date().toISOString() }));
  } catch {
    // A missed notification is recovered by the subscriber's read of the record.
  }
}
