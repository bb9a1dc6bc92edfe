import { connectRedis, Logger } from '@em/core';
import type { Redis } from 'ioredis';

type Listener = (message: unknown) => void;

/**
 * Redis pub/sub for every subscription of a gateway process, on one connection: a channel is
 * subscribed while someone listens to it (an event's photos or videos, a clipping request) and
 * unsubscribed after the last one leaves. Publishers: the subgraphs and the ml-worker.
 */
export class RedisChannelFeed {
  private readonly subscriber: Redis;
  private readonly listeners = new Map<string, Set<Listener>>();
  /** Each listened channel's SUBSCRIBE, which a listener awaits before it counts on messages. */
  private readonly subscribed = new Map<string, Promise<unknown>>();

  constructor(
    redisUrl: string,
    private readonly logger: Logger,
  ) {
    this.subscriber = connectRedis(redisUrl);
    this.subscriber.on('error', (err) => logger.warn({ err: err.message }, 'subscription feed: redis unavailable'));
    this.subscriber.on('message', (channel: string, text: string) => {
      const listeners = this.listeners.get(channel);
      if (!listeners) return;
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        return this.logger.warn({ channel }, 'subscription feed: unreadable message');
      }
      for (const listener of listeners) listener(message);
    });
  }

  /** Starts listening to the channel (resolves once Redis has it); the returned function stops. */
  async listen(channel: string, listener: Listener): Promise<() => void> {
    const set = this.listeners.get(channel) ?? new Set();
    set.add(listener);
    this.listeners.set(channel, set);
    let subscribing = this.subscribed.get(channel);
    if (!subscribing) {
      subscribing = this.subscriber.subscribe(channel);
      this.subscribed.set(channel, subscribing);
    }
    const stop = () => {
      set.delete(listener);
      if (set.size > 0 || this.listeners.get(channel) !== set) return;
      this.listeners.delete(channel);
      this.subscribed.delete(channel);
      // Commands run in order on the connection: a later SUBSCRIBE of the channel wins over this.
      this.subscriber.unsubscribe(channel).catch(() => undefined);
    };
    try {
      await subscribing;
    } catch (err) {
      stop();
      throw err;
    }
    return stop;
  }

  /** Channels listened to now (a test's view of the unsubscribing). */
  get channels(): string[] {
    return [...this.listeners.keys()];
  }

  close(): void {
    this.subscriber.disconnect();
  }
}
