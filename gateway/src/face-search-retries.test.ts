import { InMemoryFaceSearchesRepository } from '@em/core/testing';
import { FieldNode, OperationDefinitionNode, parse } from 'graphql';
import { FaceSearchRetries } from './face-search-retries';

const STORED = '0b7e1c52-4a36-4d0e-9b59-3f1f4b8a2d11';
const field = (source: string) =>
  (parse(source).definitions[0] as OperationDefinitionNode).selectionSet.selections[0] as FieldNode;

async function retries() {
  const searches = new InMemoryFaceSearchesRepository();
  await searches.insertIfAbsent({
    requestId: STORED,
    orgId: 1,
    eventId: 5,
    apiKeyId: null,
    confidenceThreshold: 62,
    matches: [],
    facesFound: 1,
    embedding: null,
  });
  return new FaceSearchRetries(searches);
}

describe('FaceSearchRetries', () => {
  it('a face search whose requestId has a stored result of the caller organisation, in that event, is a cached retry', async () => {
    const r = await retries();
    expect(
      await r.isCachedRetry(
        field(`mutation { searchFaces(orgId: 1, eventId: 5, requestId: "${STORED}") { requestId } }`),
        undefined,
        [1],
      ),
    ).toBe(true);
    expect(
      await r.isCachedRetry(
        field('mutation($r: String, $e: Int!) { searchFaces(orgId: 1, eventId: $e, requestId: $r) { requestId } }'),
        { r: STORED.toUpperCase(), e: 5 },
        [1],
      ),
    ).toBe(true);
  });

  it('is not when the result is of another organisation or event, the id is unknown or malformed, or the field is not a face search', async () => {
    const r = await retries();
    const search = (eventId: number, requestId: string) =>
      field(`mutation { searchFaces(orgId: 1, eventId: ${eventId}, requestId: "${requestId}") { requestId } }`);
    expect(await r.isCachedRetry(search(5, STORED), undefined, [2])).toBe(false);
    expect(await r.isCachedRetry(search(6, STORED), undefined, [1])).toBe(false);
    expect(await r.isCachedRetry(search(5, '0b7e1c52-4a36-4d0e-9b59-000000000000'), undefined, [1])).toBe(false);
    expect(await r.isCachedRetry(search(5, 'not-a-uuid'), undefined, [1])).toBe(false);
    expect(
      await r.isCachedRetry(field(`query { photos(orgId: 1, eventId: 5) { items { id } } }`), undefined, [1]),
    ).toBe(false);
  });
});
