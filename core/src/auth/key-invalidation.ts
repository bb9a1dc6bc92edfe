import IORedis, { Redis } from 'ioredis';
import type { Logger } from '../logger';
import { connectRedis } from '../redis';

/** Redis pub/sub channel on which a deactivated, reactivated or deleted key's id is announced. */
export const API_KEY_INVALIDATION_CHANNEL = 'em:api-keys:invalidated';

/** Announces that a key changed, so every gateway drops what it cached of it at once. */
export interface KeyInvalidationNotifier {
  keyChanged(keyId: number): Promise<void>;
  close(): void;
}

/**
 * Publishes on API_KEY_INVALIDATION_CHANNEL. Connects on first use (the CLI mostly does not need
 * it) and waits for the connection, at most `timeoutMs`. A failed publish is reported and
 * swallowed: the change is already in Postgres, and the gateways' cache lifetime
 * (API_KEY_CACHE_SECONDS) still bounds how long it goes unseen.
 */
export function keyInvalidationNotifier(
  redisUrl: string,
  onError: (err: unknown) => void = () => undefined,
  timeoutMs = 2000,
): KeyInvalidationNotifier {
  let redis: Redis | null = null;
  return {
    async keyChanged(keyId) {
      try {
        if (!redis) {
          redis = new IORedis(redisUrl, { maxRetriesPerRequest: 1 });
          redis.on('error', () => undefined); // reported through the failed publish below
        }
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>(
          (_, reject) =>
            (timer = setTimeout(() => reject(new Error(`no answer from Redis in ${timeoutMs} ms`)), timeoutMs)),
        );
        await Promise.race([redis.publish(API_KEY_INVALIDATION_CHANNEL, String(keyId)), timeout]).finally(() =>
          clearTimeout(timer),
        );
      } catch (err) {
        onError(err);
      }
    },
    close() {
      redis?.disconnect();
    },
  };
}

export interface KeyChangeHandlers {
  /** A key was deactivated, reactivated or deleted. */
  keyChanged(keyId: number): void;
  /** Announcements may have been missed (Redis reconnected): forget every cached key. */
  resync(): void;
}

/**
 * Listens on Redis for the key changes the events subgraph and the CLI announce, so a
 * deactivated key stops working at once (the gateway's key cache, the REST adapter's read grants) instead of after API_KEY_CACHE_SECONDS.
 */
export function listenForKeyChanges(redisUrl: string, handlers: KeyChangeHandlers, logger: Logger): { close(): void } {
  const subscriber = connectRedis(redisUrl);
  let subscribedBefore = false;
  subscriber.on('error', (err) => logger.warn({ err: err.message }, 'key change listener: redis unavailable'));
  subscriber.on('ready', () => {
    if (subscribedBefore) handlers.resync();
    subscribedBefore = true;
  });
  subscriber.on('message', (channel: string, message: string) => {
    const keyId = Number(message);
    if (channel === API_KEY_INVALIDATION_CHANNEL && Number.isSafeInteger(keyId)) handlers.keyChanged(keyId);
  });
  void subscriber
    .subscribe(API_KEY_INVALIDATION_CHANNEL)
    .catch((err: Error) => logger.warn({ err: err.message }, 'key change listener: subscribe failed'));
  return { close: () => subscriber.disconnect() };
}
