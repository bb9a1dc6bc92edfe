import type { Redis } from 'ioredis';

/** A job a caller has waiting or running stops counting after this long even if its release was lost (a crash). */
const SHARE_TTL_SECONDS = 3600;

const sharesKey = (queue: string, caller: string) => `fairshare:${queue}:${caller}`;

/**
 * The jobs one caller has waiting or running on a shared queue, as a BullMQ priority: a caller's only job goes in
 * arrival order (priority 0, before every prioritised job), its second waits behind every other caller's first
 * (priority 1), and so on. One visitor sending many requests then delays their own, not everybody's.
 */
export async function admitFairShare(redis: Redis, queue: string, caller: string, jobId: string): Promise<number> {
  const key = sharesKey(queue, caller);
  const now = Date.now();
  const results = await redis
    .multi()
    .zremrangebyscore(key, '-inf', now - SHARE_TTL_SECONDS * 1000)
    .zadd(key, now, jobId)
    .zcard(key)
    .expire(key, SHARE_TTL_SECONDS)
    .exec();
  const held = Number(results?.[2]?.[1] ?? 1);
  return Math.max(0, held - 1);
}

/** The job no longer holds a share of its caller's (it completed or failed for good). */
export async function releaseFairShare(redis: Redis, queue: string, caller: string, jobId: string): Promise<void> {
  await redis.zrem(sharesKey(queue, caller), jobId);
}

/** How many jobs the caller holds on the queue (waiting or running, within the share's lifetime). */
export async function fairSharesHeld(redis: Redis, queue: string, caller: string): Promise<number> {
  const key = sharesKey(queue, caller);
  await redis.zremrangebyscore(key, '-inf', Date.now() - SHARE_TTL_SECONDS * 1000);
  return redis.zcard(key);
}
