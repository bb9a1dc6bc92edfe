import { AppError, newId, PhotoStatusEvent, Principal } from '@em/core';
import { GraphQLError } from 'graphql';
import { callerOf, SubgraphQuery } from '../subgraph-query';
import { PhotoStatusFeed } from './photo-status-feed';

export interface PhotoStatusArgs {
  orgId: number;
  eventId: number;
}

/** Refuses (throws the AppError of) a caller who may not follow the event's pipeline. */
export type AuthorisePhotoStatus = (principal: Principal, args: PhotoStatusArgs) => Promise<void>;

/** The images subgraph guards `pipelineStatus` (organisers of the event): the subscription asks it as the caller. */
const PIPELINE_STATUS = `query PhotoStatusGuard($orgId: Int!, $eventId: Int!) {
  pipelineStatus(orgId: $orgId, eventId: $eventId) { total }
}`;

export function authorisePhotoStatusByImages(
  query: SubgraphQuery,
  imagesSubgraphUrl: string,
  signing: { secret: string; ttlSeconds: number },
): AuthorisePhotoStatus {
  return async (principal, args) => {
    const caller = callerOf(principal, signing, principal.requestId ?? newId());
    await query(imagesSubgraphUrl, caller, PIPELINE_STATUS, { ...args });
  };
}

/**
 * `photoStatus(orgId, eventId)`: every transition of the event's photos (queued, processing,
 * processed, failed with its reason) from now on, until the client stops. Authorised like
 * `pipelineStatus`; listening starts before the guard answers, and nothing is sent before it.
 */
export function photoStatusStream(authorise: AuthorisePhotoStatus, feed: Pick<PhotoStatusFeed, 'listen'>) {
  return async function* photoStatus(args: PhotoStatusArgs, ctx: { principal: Principal }) {
    const queue: PhotoStatusEvent[] = [];
    let wake: (() => void) | null = null;
    const stop = await feed.listen(args.eventId, (event) => {
      queue.push(event);
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
        yield { photoStatus: queue.shift()! };
      }
    } finally {
      stop();
    }
  };
}
