import { apiKeyPrincipal } from '@em/core/testing';
import { FieldNode, OperationDefinitionNode, parse } from 'graphql';
import { FaceSearchRetries } from './face-search-retries';

const STORED = '0b7e1c52-4a36-4d0e-9b59-3f1f4b8a2d11';
const field = (source: string) =>
  (parse(source).definitions[0] as OperationDefinitionNode).selectionSet.selections[0] as FieldNode;

/** The search subgraph's answer, as a stored search (org 1, event 5) and the questions asked of it. */
function retries() {
  const asked: Array<{ eventId: number; requestId: string }> = [];
  const r = new FaceSearchRetries(async (_caller, eventId, requestId) => {
    asked.push({ eventId, requestId });
    return eventId === 5 && requestId === STORED;
  });
  return Object.assign(r, { asked });
}
const callerOf = (orgId: number | null) => ({
  principal: orgId === null ? { ...apiKeyPrincipal(1), orgId: null } : apiKeyPrincipal(orgId),
  token: 'signed',
  requestId: 'r1',
});

describe('FaceSearchRetries', () => {
  it('a face search whose requestId has a stored result of the caller organisation, in that event, is a cached retry', async () => {
    const r = retries();
    expect(
      await r.isCachedRetry(
        field(`mutation { searchFaces(orgId: 1, eventId: 5, requestId: "${STORED}") { requestId } }`),
        undefined,
        callerOf(1),
      ),
    ).toBe(true);
    expect(
      await r.isCachedRetry(
        field('mutation($r: String, $e: Int!) { searchFaces(orgId: 1, eventId: $e, requestId: $r) { requestId } }'),
        { r: STORED.toUpperCase(), e: 5 },
        callerOf(1),
      ),
    ).toBe(true);
  });

  it('is not when the id is not stored in that event; a malformed id or another field is never asked about', async () => {
    const r = retries();
    const search = (eventId: number, requestId: string) =>
      field(`mutation { searchFaces(orgId: 1, eventId: ${eventId}, requestId: "${requestId}") { requestId } }`);
    expect(await r.isCachedRetry(search(6, STORED), undefined, callerOf(1))).toBe(false);
    expect(await r.isCachedRetry(search(5, '0b7e1c52-4a36-4d0e-9b59-000000000000'), undefined, callerOf(1))).toBe(
      false,
    );
    expect(r.asked).toHaveLength(2);
    expect(await r.isCachedRetry(search(5, 'not-a-uuid'), undefined, callerOf(1))).toBe(false);
    expect(
      await r.isCachedRetry(field(`query { photos(orgId: 1, eventId: 5) { items { id } } }`), undefined, callerOf(1)),
    ).toBe(false);
    expect(await r.isCachedRetry(search(5, STORED), undefined, callerOf(null))).toBe(false);
    expect(r.asked).toHaveLength(2);
  });

  it('a search subgraph that cannot answer makes it a fresh search (charged), never an error', async () => {
    const r = new FaceSearchRetries(() => Promise.reject(new Error('fetch failed')));
    const search = field(`mutation { searchFaces(orgId: 1, eventId: 5, requestId: "${STORED}") { requestId } }`);
    expect(await r.isCachedRetry(search, undefined, callerOf(1))).toBe(false);
  });
});
