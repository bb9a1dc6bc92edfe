import type { Redis } from 'ioredis';
import { announceStatus } from '../status-announcement';
import type { VideoStatus } from '../db/entities';

/** One transition of an event video's indexing, as the dashboard's subscription receives it. */
export interface VideoStatusEvent {
  eventId: number;
  videoId: string;
  status: VideoStatus;
  /** Share of the video indexed, 0-1. */
  progress: number;
  /** Why indexing failed, as the organiser reads it; null otherwise. */
  error: string | null;
  /** ISO time of the transition. */
  at: string;
}

export const VIDEO_STATUS_CHANNEL_PREFIX = 'video-status:';
export const videoStatusChannel = (eventId: number) => `${VIDEO_STATUS_CHANNEL_PREFIX}${eventId}`;

/** How a process announces a video's transition (videoStatusPublisher on Redis; nothing in unit tests). */
export type AnnounceVideoStatus = (event: Omit<VideoStatusEvent, 'at'>) => Promise<void>;

/** Announces a transition on the event's channel (the gateway's videoStatus subscriptions listen). */
export function videoStatusPublisher(redis: Redis): AnnounceVideoStatus {
  return (event) => announceStatus(redis, videoStatusChannel(event.eventId), event);
}
