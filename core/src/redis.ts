import IORedis, { Redis } from 'ioredis';

/**
 * A Redis connection. By default for BullMQ (which needs `maxRetriesPerRequest: null`): commands
 * wait through a disconnection and run once Redis is back. `failFast` connections are for calls on
 * a request's path that have a fallback (rate limits): while Redis is down their commands fail at
 * once instead of holding the request.
 */
export function connectRedis(url: string, opts: { failFast?: boolean } = {}): Redis {
  if (opts.failFast)
    return new IORedis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, enableReadyCheck: true });
  return new IORedis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}
