import { PRINCIPAL_HEADER } from '@em/core';
import { uploadAuthorizer } from './authorize-uploads';

const principal = { token: 'signed-principal', requestId: 'req-1' };

/** A fake events subgraph: answers `authorize` from `decide`, and records what it was asked. */
function eventsSubgraph(decide: (variables: Record<string, unknown>) => object) {
  const calls: Array<{ url: string; headers: Record<string, string>; variables: Record<string, unknown> }> = [];
  const request = async (url: string, init: { headers: Record<string, string>; body: string }) => {
    const { variables } = JSON.parse(init.body);
    calls.push({ url, headers: init.headers, variables });
    return { status: 200, body: JSON.stringify(decide(variables)) };
  };
  return { calls, request };
}

describe('uploadAuthorizer', () => {
  it('asks the events subgraph to authorise each root field with its organisation and event, as the caller', async () => {
    const events = eventsSubgraph(() => ({ data: { authorize: true } }));
    const authorize = uploadAuthorizer('http://events/graphql', events.request);
    await authorize(
      {
        query:
          'mutation($o: Int!, $f: [Upload!]) { importPhotos(orgId: $o, eventId: 7, files: $f) { imported } ... on Mutation { addEventVideo(orgId: $o, eventId: 8) { id } } }',
        variables: { o: 3, f: [null] },
      },
      principal,
    );
    expect(events.calls.map((c) => c.variables)).toEqual([
      { operation: 'importPhotos', orgId: 3, eventId: 7 },
      { operation: 'addEventVideo', orgId: 3, eventId: 8 },
    ]);
    expect(events.calls[0]).toMatchObject({
      url: 'http://events/graphql',
      headers: { [PRINCIPAL_HEADER]: 'signed-principal', 'x-request-id': 'req-1' },
    });
  });

  it("throws the operation's own error when the subgraph refuses (another organisation's key: FORBIDDEN)", async () => {
    const events = eventsSubgraph(() => ({
      data: null,
      errors: [{ message: 'This key belongs to another organisation', extensions: { code: 'FORBIDDEN' } }],
    }));
    const authorize = uploadAuthorizer('http://events/graphql', events.request);
    await expect(
      authorize({ query: 'mutation { importPhotos(orgId: 1, eventId: 2) { imported } }' }, principal),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', status: 403 });
  });

  it('refuses a batch, a missing query and text that is not GraphQL with a 400, asking nothing', async () => {
    const events = eventsSubgraph(() => ({ data: { authorize: true } }));
    const authorize = uploadAuthorizer('http://events/graphql', events.request);
    await expect(authorize([{ query: '{ ping }' }] as never, principal)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(authorize({ variables: {} }, principal)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(authorize({ query: 'mutation {' }, principal)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(events.calls).toHaveLength(0);
  });

  it('skips fields outside the operation table (__typename) and the operations not selected', async () => {
    const events = eventsSubgraph(() => ({ data: { authorize: true } }));
    const authorize = uploadAuthorizer('http://events/graphql', events.request);
    await authorize(
      {
        query: 'mutation A { __typename } mutation B { goLive(orgId: 1, eventId: 2) { published } }',
        operationName: 'A',
      },
      principal,
    );
    expect(events.calls).toHaveLength(0);
  });
});
