import { PrincipalForwardingDataSource } from './data-source';

const answer = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('PrincipalForwardingDataSource.errorFromResponse', () => {
  const source = new PrincipalForwardingDataSource({ url: 'http://search/graphql' });

  it("keeps a subgraph 400's own message and code (an impossible date is the caller's error, not an internal one)", async () => {
    const message =
      'Variable "$from" got invalid value "0000-00-00"; DateTime cannot represent an invalid date-time-string 0000-00-00.';
    const error = await source.errorFromResponse(
      answer(400, { errors: [{ message, extensions: { code: 'BAD_USER_INPUT' } }] }),
    );
    expect(error.message).toBe(message);
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
  });

  it("leaves other failures as Apollo words them (no code: the gateway's INTERNAL)", async () => {
    const error = await source.errorFromResponse(
      answer(500, { errors: [{ message: 'boom', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] }),
    );
    expect(error.message).toMatch(/^500: /);
    expect(error.extensions.code).toBeUndefined();
  });
});
