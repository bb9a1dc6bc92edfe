import IORedis, { Redis } from 'ioredis';

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
