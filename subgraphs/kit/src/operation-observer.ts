import { ApolloServerPlugin } from '@apollo/server';
import { Logger, ServiceMetrics } from '@em/core';

/**
 * Times and logs every GraphQL operation: by its name (or its first root field), with status `ok`
 * or the code of its first error (`invalid` when it did not parse), and the request id the REST
 * adapter or the caller gave it (`x-request-id`). Failed operations log at warn, others at debug.
 */
export function operationObserver(metrics: ServiceMetrics, logger: Logger): ApolloServerPlugin<any> {
  return {
    async requestDidStart() {
      const started = Date.now();
      let name = 'invalid';
      let end: ((status: string) => void) | null = null;
      return {
        async didResolveOperation({ operation, operationName }) {
          const field = operation?.selectionSet.selections.find((s) => s.kind === 'Field');
          name = operationName ?? (field && 'name' in field ? field.name.value : 'anonymous');
          end = metrics.startRequest(name);
        },
        async willSendResponse({ errors, contextValue }) {
          const status = errors?.length ? String(errors[0].extensions?.code ?? 'ERROR') : 'ok';
          (end ?? metrics.startRequest(name))(status);
          const entry = { requestId: (contextValue as { requestId?: string } | undefined)?.requestId, operation: name, status, ms: Date.now() - started };
          if (status === 'ok') logger.debug(entry, 'operation');
          else logger.warn({ ...entry, error: errors?.[0]?.message }, 'operation failed');
        },
      };
    },
  };
}
