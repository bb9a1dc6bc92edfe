import type { ErrorRequestHandler } from 'express';

/**
 * Answers a request body that cannot be read (too large for GRAPHQL_MAX_BODY_BYTES, not JSON, a
 * bad multipart upload) in GraphQL's error format instead of express's HTML page.
 */
export function graphqlBodyErrors(maxBodyBytes: number): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    // express's body parsers and multer report with these fields.
    const err = (error ?? {}) as { status?: unknown; statusCode?: unknown; type?: unknown; message?: unknown };
    const status =
      typeof err.status === 'number' ? err.status : typeof err.statusCode === 'number' ? err.statusCode : 500;
    if (status >= 500 || res.headersSent) return next(error);
    const [code, message] =
      err.type === 'entity.too.large'
        ? ['PAYLOAD_TOO_LARGE', `The request body is larger than ${maxBodyBytes} bytes`]
        : [
            status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST',
            err.type === 'entity.parse.failed' ? 'The request body is not valid JSON' : String(err.message),
          ];
    res.status(status).json({ errors: [{ message, extensions: { code } }] });
  };
}
