import { connectRedis, Logger, PHOTO_STATUS_CHANNEL_PREFIX, PhotoStatusEvent } from '@em/core';
import type { Redis } from 'ioredis';

type Listener = (event: PhotoStatusEvent) => void;

/**
 * One Redis pub/sub connection per gateway process, fanned out to the photoStatus subscriptions of
 * each event. The images subgraph (queued) and the ml-worker (processing, processed, failed) publish.
 */
export class PhotoStatusFeed {
  private readonly subscriber: Redis;
  private readonly listeners = new Map<number, Set<Listener>>();
  private ready: Promise<unknown> | null = null;

  constructor(
    redisUrl: string,
    private readonly logger: Logger,
  ) {
    this.subscriber = connectRedis(redisUrl);
    this.subscriber.on('error', (err) => logger.warn({ err: err.message }, 'photo status feed: redis unavailable'));
    this.subscriber.on('pmessage', (_pattern, channel: string, message: string) => {
      const listeners = this.listeners.get(Number(channel.slice(PHOTO_STATUS_CHANNEL_PREFIX.length)));
      if (!listeners) return;
      try {
        const event = JSON.parse(message) as PhotoStatusEvent;
        for (const listener of listeners) listener(event);
      } catch {
        this.logger.warn({ channel }, 'photo status feed: unreadable message');
      }
    });
  }

  /** Starts listening for the event's photo transitions; the returned function stops. */
  async listen(eventId: number, listener: Listener): Promise<() => void> {
    this.ready ??= this.subscriber.psubscribe(`${PHOTO_STATUS_CHANNEL_PREFIX}*`);
    await this.ready;
    const set = this.listeners.get(eventId) ?? new Set();
    set.add(listener);
    this.listeners.set(eventId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(eventId);
    };
  }

  close(): void {
    this.subscriber.disconnect();
  }
}
