import {
  AppError,
  ClipStatusEvent,
  clipStatusChannel,
  isTerminalClipStatus,
  parseRequestId,
  Principal,
} from '@em/core';
import { GraphQLError, GraphQLSchema } from 'graphql';
import { EventFeedStreams, makeSubscriptionSchema } from './schema';
import { RedisChannelFeed } from './redis-channel-feed';

export interface SubscriptionContext {
  principal: Principal;
}

export interface ClipStatusArgs {
  orgId: number;
  eventId: number;
  requestId: string;
}

/**
 * A clipping request's status now, as the media subgraph (which owns the requests) answers it after its guard;
 * throws the AppError of a refused caller or an unknown request.
 */
export type CurrentClipStatus = (principal: Principal, args: ClipStatusArgs) => Promise<ClipStatusEvent>;

/**
 * `clipStatus(orgId, eventId, requestId)`: the request's current status at once, then every
 * transition, ending after the terminal one. Authorised like the read query (organisation, event,
 * video flags: the media subgraph's guard); the request must be of that event.
 */
export function clipStatusSchema(
  currentStatus: CurrentClipStatus,
  feed: Pick<RedisChannelFeed, 'listen'>,
  eventFeeds: EventFeedStreams<SubscriptionContext> = {},
): GraphQLSchema {
  return makeSubscriptionSchema(async function* clipStatus(args: ClipStatusArgs, ctx: SubscriptionContext) {
    const requestId = parseRequestId(args.requestId);
    const queue: ClipStatusEvent[] = [];
    let wake: (() => void) | null = null;
    // Listening starts before the status is read, so no transition falls between; nothing is sent before the guard.
    const stop =
      requestId === null
        ? () => {}
        : await feed.listen(clipStatusChannel(requestId), (message) => {
            const event = message as ClipStatusEvent;
            // The channel is per request_id, which another event may use too.
            if (event.eventId !== args.eventId) return;
            queue.push(event);
            wake?.();
          });
    try {
      let current: ClipStatusEvent;
      try {
        current = await currentStatus(ctx.principal, args);
      } catch (err) {
        if (err instanceof AppError) throw new GraphQLError(err.message, { extensions: { code: err.code } });
        throw err;
      }
      yield { clipStatus: current };
      if (isTerminalClipStatus(current.status)) return;
      let last: ClipStatusEvent['status'] = current.status;
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const event = queue.shift()!;
        // A transition announced before the record was read is not repeated.
        if (event.status === last) continue;
        last = event.status;
        yield { clipStatus: event };
        if (isTerminalClipStatus(event.status)) return;
      }
    } finally {
      stop();
    }
  }, eventFeeds);
}
