import { AppError, newId, Principal } from '@em/core';
import { GraphQLError } from 'graphql';
import { callerOf, SubgraphQuery } from '../subgraph-query';
import { RedisChannelFeed } from './redis-channel-feed';

export interface EventFeedArgs {
  orgId: number;
  eventId: number;
}

/** Refuses (throws the AppError of) a caller who may not follow the event's feed. */
export type AuthoriseEventFeed = (principal: Principal, args: EventFeedArgs) => Promise<void>;

/**
 * The query each event feed is authorised like, asked of the subgraph that owns it as the caller:
 * the photo pipeline's transitions like `pipelineStatus` (images), the videos' like `eventVideos` (media).
 */
export const FEED_GUARDS = {
  photoStatus: `query PhotoStatusGuard($orgId: Int!, $eventId: Int!) {
    pipelineStatus(orgId: $orgId, eventId: $eventId) { total }
  }`,
  videoStatus: `query VideoStatusGuard($orgId: Int!, $eventId: Int!) {
    eventVideos(orgId: $orgId, eventId: $eventId) { id }
  }`,
} as const;

export function authoriseByQuery(
  query: SubgraphQuery,
  subgraphUrl: string,
  guard: string,
  signing: { secret: string; ttlSeconds: number },
): AuthoriseEventFeed {
  return async (principal, args) => {
    const caller = callerOf(principal, signing, principal.requestId ?? newId());
    await query(subgraphUrl, caller, guard, { ...args });
  };
}

/**
 * A subscription field that passes on every message of the event's channel from now on, until the
 * client stops (`photoStatus`, `videoStatus`). Listening starts before the guard answers, so no
 * transition falls between, and nothing is sent before it.
 */
export function eventFeedStream<Field extends string>(
  field: Field,
  channelOf: (eventId: number) => string,
  authorise: AuthoriseEventFeed,
  feed: Pick<RedisChannelFeed, 'listen'>,
) {
  return async function* eventFeed(args: EventFeedArgs, ctx: { principal: Principal }) {
    const queue: unknown[] = [];
    let wake: (() => void) | null = null;
    const stop = await feed.listen(channelOf(args.eventId), (message) => {
      queue.push(message);
      wake?.();
    });
    try {
      try {
        await authorise(ctx.principal, args);
      } catch (err) {
        if (err instanceof AppError) throw new GraphQLError(err.message, { extensions: { code: err.code } });
        throw err;
      }
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        yield { [field]: queue.shift() } as Record<Field, unknown>;
      }
    } finally {
      stop();
    }
  };
}
