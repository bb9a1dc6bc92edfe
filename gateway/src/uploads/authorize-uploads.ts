import { AppError, findOperationPolicy, normaliseErrorCode, PRINCIPAL_HEADER } from '@em/core';
import { FieldNode, Kind, parse, ValueNode } from 'graphql';
import { fragmentsOf, rootFieldsOf, selectedOperation } from '../operations/root-fields';
import { SubgraphRequest } from '../subgraph-query';

/** The events subgraph's check of a caller for a root field, without its work. */
const AUTHORIZE =
  'query Authorize($operation: String!, $orgId: Int, $eventId: Int) { authorize(operation: $operation, orgId: $orgId, eventId: $eventId) }';

/** A multipart request's operations field, as graphql-upload parsed it (files still unread). */
export interface MultipartOperation {
  query?: unknown;
  operationName?: unknown;
  variables?: unknown;
}

/**
 * Authorises every root field of a multipart operation (credential, organisation, event, feature
 * flags, write access: the `authorize` query of the events subgraph, the same checks as the
 * operation) before any file part is read. Files arrive after the operation in the body and
 * graphql-upload leaves them unread until a subgraph call consumes them, so a refused caller's
 * upload is never read. Throws the AppError the operation would have given.
 */
export function uploadAuthorizer(eventsSubgraphUrl: string, request: SubgraphRequest) {
  return async (operation: MultipartOperation, principal: { token: string; requestId: string }): Promise<void> => {
    if (Array.isArray(operation) || typeof operation?.query !== 'string') {
      throw new AppError('BAD_REQUEST', 'A multipart request carries one operation with its query text');
    }
    const variables = isRecord(operation.variables) ? operation.variables : {};
    let document;
    try {
      document = parse(operation.query);
    } catch {
      throw new AppError('BAD_REQUEST', 'The operation is not valid GraphQL');
    }
    const operationName = typeof operation.operationName === 'string' ? operation.operationName : undefined;
    const fields = rootFieldsOf(selectedOperation(document, operationName), fragmentsOf(document));
    const headers = {
      'content-type': 'application/json',
      [PRINCIPAL_HEADER]: principal.token,
      'x-request-id': principal.requestId,
    };
    for (const field of fields) {
      if (!findOperationPolicy(field.name.value)) continue;
      const ids = { orgId: intArgument(field, 'orgId', variables), eventId: intArgument(field, 'eventId', variables) };
      const body = JSON.stringify({ query: AUTHORIZE, variables: { operation: field.name.value, ...ids } });
      const answer = await request(eventsSubgraphUrl, { method: 'POST', headers, body });
      let result: {
        data?: { authorize?: boolean } | null;
        errors?: Array<{ message?: string; extensions?: { code?: unknown } }>;
      };
      try {
        result = JSON.parse(answer.body) as typeof result;
      } catch {
        throw new AppError('UNAVAILABLE', 'The service is temporarily unavailable');
      }
      if (result.data?.authorize === true) continue;
      const error = result.errors?.[0];
      throw new AppError(normaliseErrorCode(error?.extensions?.code), error?.message ?? 'The operation is not allowed');
    }
  };
}

/** An Int argument of a root field, given inline or through a variable; null when absent or not an integer. */
function intArgument(field: FieldNode, name: string, variables: Record<string, unknown>): number | null {
  const value: ValueNode | undefined = field.arguments?.find((a) => a.name.value === name)?.value;
  if (!value) return null;
  if (value.kind === Kind.INT) return Number(value.value);
  if (value.kind === Kind.VARIABLE) {
    const given = variables[value.name.value];
    return Number.isSafeInteger(given) ? (given as number) : null;
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value);
}
