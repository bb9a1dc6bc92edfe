import { AppError, normaliseErrorCode, Principal, PRINCIPAL_HEADER, signPrincipal } from '@em/core';

/** Posts a GraphQL request to a subgraph and gives back its raw answer (the gateway's SubgraphFetcher). */
export type SubgraphRequest = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string },
) => Promise<{ status: number; body: string }>;

/** The caller a subgraph query is made for: the signed principal and the request id the logs follow. */
export interface SubgraphCaller {
  token: string;
  requestId: string;
}

/** One query of a subgraph's, made for a caller; resolves with its `data`. */
export type SubgraphQuery = <Data>(
  url: string,
  caller: SubgraphCaller,
  query: string,
  variables: Record<string, unknown>,
) => Promise<Data>;

interface GraphQLAnswer<Data> {
  data?: Data | null;
  errors?: Array<{ message?: string; extensions?: { code?: unknown } }>;
}

/**
 * Asks a subgraph directly, as the caller: the gateway's own questions (its internal fields are
 * `@inaccessible`, out of the API, so no client reaches them). A subgraph's error becomes the AppError
 * it stands for; an unreachable subgraph or an unreadable answer is UNAVAILABLE.
 */
export function subgraphQuery(request: SubgraphRequest): SubgraphQuery {
  return async <Data>(
    url: string,
    caller: SubgraphCaller,
    query: string,
    variables: Record<string, unknown>,
  ): Promise<Data> => {
    const headers = {
      'content-type': 'application/json',
      [PRINCIPAL_HEADER]: caller.token,
      'x-request-id': caller.requestId,
    };
    const body = JSON.stringify({ query, variables });
    let result: GraphQLAnswer<Data>;
    try {
      result = JSON.parse((await request(url, { method: 'POST', headers, body })).body) as GraphQLAnswer<Data>;
    } catch {
      throw new AppError('UNAVAILABLE', 'The service is temporarily unavailable');
    }
    const error = result.errors?.[0];
    if (error || !result.data) {
      throw new AppError(normaliseErrorCode(error?.extensions?.code), error?.message ?? 'The service gave no answer');
    }
    return result.data;
  };
}

/** A principal signed for one subgraph call (the subscriptions hold a principal, not a token). */
export function callerOf(principal: Principal, signing: { secret: string; ttlSeconds: number }, requestId: string) {
  return { token: signPrincipal(principal, signing.secret, signing.ttlSeconds), requestId };
}
