import { findOperationPolicy, parseRequestId, Principal, principalOrganisations } from '@em/core';
import { FieldNode, valueFromASTUntyped } from 'graphql';
import { SubgraphCaller, SubgraphQuery } from './subgraph-query';

/** The search subgraph's internal field: a stored search of the caller's organisation in the event. */
const STORED_FACE_SEARCH =
  'query StoredFaceSearch($eventId: Int!, $requestId: String!) { storedFaceSearch(eventId: $eventId, requestId: $requestId) }';

/** Whether a request_id has a stored search of the caller's organisation in the event (the search subgraph's). */
export type StoredFaceSearchCheck = (caller: SubgraphCaller, eventId: number, requestId: string) => Promise<boolean>;

/** The check as a query of the search subgraph, which owns `face_searches`. */
export function storedFaceSearchCheck(query: SubgraphQuery, searchSubgraphUrl: string): StoredFaceSearchCheck {
  return async (caller, eventId, requestId) => {
    const data = await query<{ storedFaceSearch: boolean }>(searchSubgraphUrl, caller, STORED_FACE_SEARCH, {
      eventId,
      requestId,
    });
    return data.storedFaceSearch === true;
  };
}

/**
 * The spec's advice on 429 is "retry with the same request_id to hit the cache": such a retry must
 * not be refused by the face-matching budget. It is recognised, field by field, before execution
 * by its requestId having a stored result of the caller's organisation.
 */
export class FaceSearchRetries {
  constructor(private readonly isStored: StoredFaceSearchCheck) {}

  async isCachedRetry(
    field: FieldNode,
    variables: Record<string, unknown> | undefined,
    caller: SubgraphCaller & { principal: Principal },
  ): Promise<boolean> {
    if (!findOperationPolicy(field.name.value)?.storedRequestIdIsRead) return false;
    const argument = (name: string) => {
      const arg = field.arguments?.find((a) => a.name.value === name);
      return arg ? valueFromASTUntyped(arg.value, variables) : undefined;
    };
    const requestId = parseRequestId(argument('requestId'));
    const eventId = argument('eventId');
    if (requestId === null || !Number.isSafeInteger(eventId)) return false;
    if (principalOrganisations(caller.principal).length === 0) return false;
    try {
      // A request_id names a search within one event.
      return await this.isStored(caller, eventId as number, requestId);
    } catch {
      return false;
    }
  }
}
