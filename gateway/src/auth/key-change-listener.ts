import { API_KEY_INVALIDATION_CHANNEL, connectRedis, Logger } from '@em/core';

export interface KeyChangeHandlers {
  /** A key was deactivated, reactivated or deleted. */
  keyChanged(keyId: number): void;
  /** Announcements may have been missed (Redis reconnected): forget every cached key. */
  resync(): void;
}

/**
 * Listens on Redis for the key changes the events subgraph and the CLI announce, so a
 * deactivated key stops working on this gateway at once instead of after API_KEY_CACHE_SECONDS.
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
