import { AppError, Logger, normaliseErrorCode } from '@em/core';
import { GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';

/**
 * Errors leave a subgraph with `extensions.code` from core's table. Unexpected errors are logged
 * and reported as INTERNAL without their details.
 */
export function formatSubgraphError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof AppError) {
      return {
        message: original.message,
        path: formatted.path,
        extensions: { code: original.code, ...(original.details ?? {}) },
      };
    }
    const code = formatted.extensions?.code;
    if (code && code !== 'INTERNAL_SERVER_ERROR') {
      return { ...formatted, extensions: { code: normaliseErrorCode(code) } };
    }
    if (isDataException(original)) {
      // SQLSTATE class 22: a value Postgres cannot take (a malformed number, date or id).
      return {
        message: 'The request contains a value that cannot be used',
        path: formatted.path,
        extensions: { code: 'BAD_REQUEST' },
      };
    }
    if (isDatabaseUnavailable(original)) {
      logger.error({ err: original }, 'database unavailable');
      return {
        message: 'The service is temporarily unavailable',
        path: formatted.path,
        extensions: { code: 'UNAVAILABLE' },
      };
    }
    logger.error({ err: original }, 'unexpected error');
    return { message: 'Internal error', path: formatted.path, extensions: { code: 'INTERNAL' } };
  };
}

function isDataException(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}

function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return (
    code === 'ECONNREFUSED' ||
    code === '57P01' ||
    code === '57P03' ||
    code === 'ETIMEDOUT' ||
    /Connection terminated|connect ECONNREFUSED|Knex: Timeout/.test(String((err as Error)?.message))
  );
}
