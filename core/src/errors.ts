/**
 * Error codes of the platform and the HTTP status each one carries. This table is the one place
 * where an error kind meets its status: subgraphs throw AppError with a code, the gateway and the
 * REST adapter translate the code with httpStatusOf().
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  /** A field of an input is invalid (GraphQL's usual code; the administration's validation, with `field` in the details). */
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  /** An internal failure before anything was recorded (the spec's face-search 500 row): its message, unlike INTERNAL's, reaches the client and says to retry. */
  NOT_RECORDED: 500,
  NOT_IMPLEMENTED: 501,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Codes that GraphQL servers produce on their own, mapped onto ours. */
const GRAPHQL_CODE_ALIASES: Record<string, ErrorCode> = {
  GRAPHQL_PARSE_FAILED: 'BAD_REQUEST',
  GRAPHQL_VALIDATION_FAILED: 'BAD_REQUEST',
  BAD_REQUEST: 'BAD_REQUEST',
  PERSISTED_QUERY_NOT_FOUND: 'BAD_REQUEST',
  INTERNAL_SERVER_ERROR: 'INTERNAL',
};

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_STATUS, code);
}

export function normaliseErrorCode(code: unknown): ErrorCode {
  if (isErrorCode(code)) return code;
  if (typeof code === 'string' && Object.prototype.hasOwnProperty.call(GRAPHQL_CODE_ALIASES, code))
    return GRAPHQL_CODE_ALIASES[code];
  return 'INTERNAL';
}

export function httpStatusOf(code: unknown): number {
  return ERROR_STATUS[normaliseErrorCode(code)];
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/**
 * The text an API client may see for an error: an AppError's own message (written for clients),
 * otherwise `fallback`. Other errors carry paths, tool output or driver details: log those.
 */
export function clientMessage(err: unknown, fallback: string): string {
  return err instanceof AppError ? err.message : fallback;
}
