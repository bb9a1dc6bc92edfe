import type { Redis } from 'ioredis';
import { announceStatus } from '../status-announcement';
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

/** Announces a transition on the request's channel (the gateway's clipStatus subscriptions listen). */
export function publishClipStatus(redis: Redis, event: Omit<ClipStatusEvent, 'at'>): Promise<void> {
  return announceStatus(redis, clipStatusChannel(event.requestId), event);
}
