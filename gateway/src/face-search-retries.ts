import { findOperationPolicy, parseRequestId } from '@em/core';
import { FaceSearchesRepository } from '@em/core/data';
import { FieldNode, valueFromASTUntyped } from 'graphql';

/**
 * The spec's advice on 429 is "retry with the same request_id to hit the cache": such a retry must
 * not be refused by the face-matching budget. It is recognised, field by field, before execution
 * by its requestId having a stored result of the caller's organisation.
 */
export class FaceSearchRetries {
  constructor(private readonly searches: Pick<FaceSearchesRepository, 'existsForOrganisations'>) {}

  async isCachedRetry(
    field: FieldNode,
    variables: Record<string, unknown> | undefined,
    orgIds: number[],
  ): Promise<boolean> {
    if (!findOperationPolicy(field.name.value)?.storedRequestIdIsRead) return false;
    const argument = (name: string) => {
      const arg = field.arguments?.find((a) => a.name.value === name);
      return arg ? valueFromASTUntyped(arg.value, variables) : undefined;
    };
    const requestId = parseRequestId(argument('requestId'));
    const eventId = argument('eventId');
    if (requestId === null || !Number.isSafeInteger(eventId) || orgIds.length === 0) return false;
    try {
      // A request_id names a search within one event.
      return await this.searches.existsForOrganisations(eventId as number, requestId, orgIds);
    } catch {
      return false;
    }
  }
}
