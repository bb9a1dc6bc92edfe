import type { Redis } from 'ioredis';
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
 * it). A failed publish is reported and swallowed: the change is already in Postgres, and the
 * gateways' cache lifetime (API_KEY_CACHE_SECONDS) still bounds how long it goes unseen.
 */
export function keyInvalidationNotifier(redisUrl: string, onError: (err: unknown) => void = () => undefined): KeyInvalidationNotifier {
  let redis: Redis | null = null;
  return {
    async keyChanged(keyId) {
      try {
        redis ??= connectRedis(redisUrl, { failFast: true });
        await redis.publish(API_KEY_INVALIDATION_CHANNEL, String(keyId));
      } catch (err) {
        onError(err);
      }
    },
    close() {
      redis?.disconnect();
    },
  };
}
