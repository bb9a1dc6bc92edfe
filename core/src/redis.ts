import IORedis, { Redis } from 'ioredis';

/** A Redis connection for BullMQ (which needs `maxRetriesPerRequest: null`) and the services. */
export function connectRedis(url: string): Redis {
  return new IORedis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}
