import { AppError, httpStatusOf, normaliseErrorCode } from './errors';

describe('error codes', () => {
  it('maps each code to its HTTP status in one table', () => {
    expect(new AppError('BAD_REQUEST', 'x').status).toBe(400);
    expect(httpStatusOf('UNAUTHENTICATED')).toBe(401);
    expect(httpStatusOf('FORBIDDEN')).toBe(403);
    expect(httpStatusOf('NOT_FOUND')).toBe(404);
    expect(httpStatusOf('UNPROCESSABLE')).toBe(422);
    expect(httpStatusOf('RATE_LIMITED')).toBe(429);
    expect(httpStatusOf('UNAVAILABLE')).toBe(503);
    expect(httpStatusOf('NOT_RECORDED')).toBe(500);
  });

  it("maps GraphQL servers' own codes and treats unknown ones as internal", () => {
    expect(normaliseErrorCode('GRAPHQL_VALIDATION_FAILED')).toBe('BAD_REQUEST');
    expect(normaliseErrorCode('BAD_USER_INPUT')).toBe('BAD_USER_INPUT');
    expect(normaliseErrorCode('SOMETHING_ELSE')).toBe('INTERNAL');
    expect(normaliseErrorCode(undefined)).toBe('INTERNAL');
    expect(httpStatusOf('toString')).toBe(500);
  });
});
