import { CLIP_STATUS_CHANNEL_PREFIX, ClipStatusEvent, connectRedis, Logger } from '@em/core';
import type { Redis } from 'ioredis';

type Listener = (event: ClipStatusEvent) => void;

/**
 * One Redis pub/sub connection per gateway process, fanned out to the subscriptions of each
 * request_id. The ml-worker and the media subgraph publish every transition of a clipping request.
 */
export class ClipStatusFeed {
  private readonly subscriber: Redis;
  private readonly listeners = new Map<string, Set<Listener>>();
  private ready: Promise<unknown> | null = null;

  constructor(
    redisUrl: string,
    private readonly logger: Logger,
  ) {
    this.subscriber = connectRedis(redisUrl);
    this.subscriber.on('error', (err) => logger.warn({ err: err.message }, 'clip status feed: redis unavailable'));
    this.subscriber.on('pmessage', (_pattern, channel: string, message: string) => {
      const requestId = channel.slice(CLIP_STATUS_CHANNEL_PREFIX.length);
      const listeners = this.listeners.get(requestId);
      if (!listeners) return;
      try {
        const event = JSON.parse(message) as ClipStatusEvent;
        for (const listener of listeners) listener(event);
      } catch {
        this.logger.warn({ channel }, 'clip status feed: unreadable message');
      }
    });
  }

  /** Starts listening for the request's transitions; the returned function stops. */
  async listen(requestId: string, listener: Listener): Promise<() => void> {
    this.ready ??= this.subscriber.psubscribe(`${CLIP_STATUS_CHANNEL_PREFIX}*`);
    await this.ready;
    const set = this.listeners.get(requestId) ?? new Set();
    set.add(listener);
    this.listeners.set(requestId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(requestId);
    };
  }

  close(): void {
    this.subscriber.disconnect();
  }
}
