import { AppError, ClipStatusEvent, isTerminalClipStatus, parseRequestId, Principal } from '@em/core';
import { ClipRequestsRepository, ClipRequestStatus, EventsRepository, guardOperation } from '@em/core/data';
import { GraphQLError, GraphQLSchema } from 'graphql';
import { makeSubscriptionSchema } from './schema';
import { ClipStatusFeed } from './clip-status-feed';

export interface SubscriptionContext {
  principal: Principal;
}

/**
 * `clipStatus(orgId, eventId, requestId)`: the request's current status at once, then every
 * transition, ending after the terminal one. Authorised like the read query (organisation, event,
 * video flags); the request must be of that event.
 */
export function clipStatusSchema(
  events: EventsRepository,
  requests: ClipRequestsRepository,
  feed: ClipStatusFeed,
): GraphQLSchema {
  return makeSubscriptionSchema(async function* clipStatus(
    args: { orgId: number; eventId: number; requestId: string },
    ctx: SubscriptionContext,
  ) {
    try {
      await guardOperation(events, ctx.principal, 'clipStatus', args.orgId, args.eventId);
    } catch (err) {
      if (err instanceof AppError) throw new GraphQLError(err.message, { extensions: { code: err.code } });
      throw err;
    }
    const requestId = parseRequestId(args.requestId);
    const notFound = () =>
      new GraphQLError('No video clipping request with this request_id for this event', {
        extensions: { code: 'NOT_FOUND' },
      });
    if (requestId === null) throw notFound();
    const queue: ClipStatusEvent[] = [];
    let wake: (() => void) | null = null;
    const stop = await feed.listen(requestId, (event) => {
      // The channel is per request_id, which another event may use too.
      if (event.eventId !== args.eventId) return;
      queue.push(event);
      wake?.();
    });
    try {
      const request = await requests.find({ eventId: args.eventId, requestId });
      if (!request) throw notFound();
      const current: ClipStatusEvent = {
        requestId,
        eventId: args.eventId,
        status: request.status,
        error: request.error ?? null,
        at: request.updatedAt.toISOString(),
      };
      yield { clipStatus: current };
      if (isTerminalClipStatus(current.status)) return;
      let last: ClipRequestStatus = current.status;
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
  });
}
