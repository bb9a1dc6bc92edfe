import { AppError, PRINCIPAL_HEADER } from '@em/core';
import { subgraphQuery } from './subgraph-query';

const caller = { token: 'signed-principal', requestId: 'req-1' };

describe('subgraphQuery', () => {
  it('posts the query as the caller (signed principal, request id) and resolves with its data', async () => {
    const sent: Array<{ url: string; headers: Record<string, string>; body: string }> = [];
    const query = subgraphQuery(async (url, init) => {
      sent.push({ url, headers: init.headers, body: init.body });
      return { status: 200, body: JSON.stringify({ data: { storedFaceSearch: true } }) };
    });
    const data = await query<{ storedFaceSearch: boolean }>('http://search/graphql', caller, 'query Q { x }', { a: 1 });
    expect(data).toEqual({ storedFaceSearch: true });
    expect(sent[0].url).toBe('http://search/graphql');
    expect(sent[0].headers[PRINCIPAL_HEADER]).toBe('signed-principal');
    expect(sent[0].headers['x-request-id']).toBe('req-1');
    expect(JSON.parse(sent[0].body)).toEqual({ query: 'query Q { x }', variables: { a: 1 } });
  });

  it("gives the subgraph's error as the AppError it stands for (code and message kept)", async () => {
    const query = subgraphQuery(async () => ({
      status: 200,
      body: JSON.stringify({
        data: null,
        errors: [{ message: 'This event is not enabled', extensions: { code: 'FORBIDDEN' } }],
      }),
    }));
    const failure = await query('http://media/graphql', caller, 'query Q { x }', {}).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'FORBIDDEN', message: 'This event is not enabled' });
  });

  it('an unreachable subgraph or an unreadable answer is UNAVAILABLE', async () => {
    const down = subgraphQuery(() => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:4004')));
    await expect(down('http://media/graphql', caller, 'query Q { x }', {})).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    const garbled = subgraphQuery(async () => ({ status: 502, body: '<html>Bad gateway</html>' }));
    await expect(garbled('http://media/graphql', caller, 'query Q { x }', {})).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
  });
});
