import { ApolloServerPlugin } from '@apollo/server';
import { Logger, ServiceMetrics } from '@em/core';
import { SubgraphContext } from './context';
import { Kind, OperationDefinitionNode } from 'graphql';

/**
 * The metric label of an operation: the schema name of its first root field (validated, so it is
 * one of a fixed set), never the client-chosen operation name, which would let any caller mint
 * new label values; `other` when the root holds only fragments.
 */
export function operationLabel(operation: OperationDefinitionNode | undefined): string {
  const field = operation?.selectionSet.selections.find((s) => s.kind === Kind.FIELD);
  return field?.kind === Kind.FIELD ? field.name.value : 'other';
}

/**
 * Times and logs every GraphQL operation: by its first root field (see operationLabel), with status `ok`
 * or the code of its first error (`invalid` when it did not parse), and the request id the REST
 * adapter or the caller gave it (`x-request-id`). Failed operations log at warn, others at debug.
 */
export function operationObserver(metrics: ServiceMetrics, logger: Logger): ApolloServerPlugin<SubgraphContext> {
  return {
    async requestDidStart() {
      const started = Date.now();
      let name = 'invalid';
      let end: ((status: string) => void) | null = null;
      return {
        async didResolveOperation({ operation }) {
          name = operationLabel(operation);
          end = metrics.startRequest(name);
        },
        async willSendResponse({ errors, contextValue }) {
          const status = errors?.length ? String((errors[0].extensions?.code as string | undefined) ?? 'ERROR') : 'ok';
          (end ?? metrics.startRequest(name))(status);
          const entry = {
            requestId: (contextValue as { requestId?: string } | undefined)?.requestId,
            operation: name,
            status,
            ms: Date.now() - started,
          };
          if (status === 'ok') logger.debug(entry, 'operation');
          else logger.warn({ ...entry, error: errors?.[0]?.message }, 'operation failed');
        },
      };
    },
  };
}
