import { ClipStatusEvent, newId } from '@em/core';
import { callerOf, SubgraphQuery } from '../subgraph-query';
import { CurrentClipStatus } from './clip-status-subscription';

/** The media subgraph's internal field (it owns the clipping requests and guards like the subscription). */
const CURRENT_CLIP_STATUS = `query CurrentClipStatus($orgId: Int!, $eventId: Int!, $requestId: String!) {
  currentClipStatus(orgId: $orgId, eventId: $eventId, requestId: $requestId) { requestId eventId status error at }
}`;

/** A request's status now, asked of the media subgraph as the subscription's caller. */
export function currentClipStatusFromMedia(
  query: SubgraphQuery,
  mediaSubgraphUrl: string,
  signing: { secret: string; ttlSeconds: number },
): CurrentClipStatus {
  return async (principal, { orgId, eventId, requestId }) => {
    const caller = callerOf(principal, signing, principal.requestId ?? newId());
    const data = await query<{ currentClipStatus: ClipStatusEvent }>(mediaSubgraphUrl, caller, CURRENT_CLIP_STATUS, {
      orgId,
      eventId,
      requestId,
    });
    return data.currentClipStatus;
  };
}
