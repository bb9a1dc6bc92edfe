import { Logger, normaliseErrorCode } from '@em/core';
import { GraphQLFormattedError } from 'graphql';

/** Keeps the subgraphs' error codes (from core's table) and hides unexpected failures' details. */
export function formatGatewayError(logger: Logger) {
  return (formatted: GraphQLFormattedError, _error: unknown): GraphQLFormattedError => {
    const code = normaliseErrorCode(formatted.extensions?.code);
    if (code === 'INTERNAL') {
      logger.error({ error: formatted }, 'operation failed');
      const unavailable = /ECONNREFUSED|fetch failed|socket hang up/i.test(formatted.message);
      return unavailable
        ? { message: 'A service is temporarily unavailable', path: formatted.path, extensions: { code: 'UNAVAILABLE' } }
        : { message: 'Internal error', path: formatted.path, extensions: { code } };
    }
    const retryAfterSeconds = formatted.extensions?.retryAfterSeconds;
    // The input field a BAD_USER_INPUT names (the administration's validation).
    const field = typeof formatted.extensions?.field === 'string' ? formatted.extensions.field : undefined;
    // A refused file's bad lines (start lists: line and reason each) are what the caller must fix.
    const lines = Array.isArray(formatted.extensions?.lines) ? formatted.extensions.lines : undefined;
    return {
      message: formatted.message,
      path: formatted.path,
      extensions: {
        code,
        ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
        ...(field ? { field } : {}),
        ...(lines ? { lines } : {}),
      },
    };
  };
}
