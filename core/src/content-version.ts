import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from './logger';

/**
 * An event's content version: what participants read of it (published photos, their BIBs, its
 * settings) changes only together with it. Postgres keeps the count (`events.content_version`);
 * Redis holds the token readers compare, so that a REST read checks it with one GET.
 *
 * The token in Redis is the count after the last bump, or a random one when the key was missing
 * (never a value used before), and it expires: a bump whose Redis write failed is stale at most
 * CONTENT_VERSION_TTL_SECONDS.
 */
export const CONTENT_VERSION_TTL_SECONDS = 600;
/** How long a reader waits for Redis before it serves without a version (the uncached path). */
const READ_TIMEOUT_MS = 250;

/** What a writer needs of Redis to mirror a version. */
export type ContentVersionMirror = Pick<Redis, 'set'>;

export const contentVersionKey = (eventId: number) => `event-content-version:${eventId}`;

/** The one place a content change is recorded: Postgres first, then the token in Redis. */
export class ContentVersions {
  constructor(
    private readonly events: { bumpContentVersion(eventId: number): Promise<number> },
    private readonly redis: ContentVersionMirror | null,
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {}

  /** Call after any change participants can see: photos published, hidden, deleted, BIBs changed, a setting. */
  async bumpContentVersion(eventId: number): Promise<void> {
    const version = await this.events.bumpContentVersion(eventId);
    if (!version || !this.redis) return;
    try {
      await this.redis.set(contentVersionKey(eventId), `v${version}`, 'EX', CONTENT_VERSION_TTL_SECONDS);
    } catch (err) {
      this.logger?.warn(
        { err: (err as Error).message, eventId },
        'content version not written to Redis; it expires on its own',
      );
    }
  }
}

/** The read side: the current token of an event, or null when Redis does not answer in time. */
export class ContentVersionReader {
  constructor(private readonly redis: Pick<Redis, 'get' | 'set'>) {}

  async current(eventId: number): Promise<string | null> {
    return withTimeout(this.read(eventId), READ_TIMEOUT_MS).catch(() => null);
  }

  private async read(eventId: number): Promise<string | null> {
    const key = contentVersionKey(eventId);
    const token = await this.redis.get(key);
    if (token) return token;
    // No token (never bumped since Redis started, or expired): a fresh one, shared by every reader.
    await this.redis.set(key, `r${randomBytes(9).toString('base64url')}`, 'EX', CONTENT_VERSION_TTL_SECONDS, 'NX');
    return this.redis.get(key);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
