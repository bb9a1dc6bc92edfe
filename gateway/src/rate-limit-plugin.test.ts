import { FieldNode, OperationDefinitionNode, parse } from 'graphql';
import { RateDecision } from '@em/core';
import { chargeOf, rateLimitPlugin } from './rate-limit-plugin';
import { fragmentsOf, rootFieldsOf } from './operations/root-fields';

const fieldsOf = (query: string): FieldNode[] => {
  const document = parse(query);
  return rootFieldsOf(document.definitions[0] as OperationDefinitionNode, fragmentsOf(document));
};
const neverCached = async () => false;

describe('chargeOf', () => {
  it('charges one face-matching unit per matching root field, fragments included', async () => {
    expect(await chargeOf(fieldsOf('mutation { a: startVideoClipping b: startVideoClipping ... on Mutation { searchFaces } ...F } fragment F on Mutation { searchFaces }'), neverCached)).toEqual({
      cls: 'matching',
      units: 4,
    });
  });

  it('charges one read for an operation without face matching', async () => {
    expect(await chargeOf(fieldsOf('query { ping events }'), neverCached)).toEqual({ cls: 'read', units: 1 });
  });

  it('counts a cached face-search retry as a read, field by field', async () => {
    const cachedWhenRetry = async (field: FieldNode) => field.arguments?.some((a) => a.name.value === 'requestId') ?? false;
    expect(await chargeOf(fieldsOf('mutation { searchFaces(requestId: "r") }'), cachedWhenRetry)).toEqual({ cls: 'read', units: 1 });
    expect(await chargeOf(fieldsOf('mutation { a: searchFaces(requestId: "r") b: searchFaces }'), cachedWhenRetry)).toEqual({ cls: 'matching', units: 1 });
  });
});

describe('rateLimitPlugin with a charge the single-fetch path already took', () => {
  const plugin = rateLimitPlugin({ consume: async () => Promise.reject(new Error('charged twice')), defaultLimit: () => 1 } as never, {} as never);
  const run = async (precharged: RateDecision) => {
    const hooks = (await plugin.requestDidStart!({} as never)) as { didResolveOperation: (ctx: unknown) => Promise<void>; willSendResponse: (ctx: unknown) => Promise<void> };
    const contextValue = { rateSubject: 'key:1', precharged };
    const document = parse('{ ping(orgId: 1, eventId: 1) { status } }');
    await hooks.didResolveOperation({ contextValue, document, operation: document.definitions[0], request: {} });
    await hooks.willSendResponse({ contextValue });
  };

  it('does not charge again, and refuses with 429 when that charge was refused', async () => {
    await expect(run({ allowed: true, limit: 5, remaining: 4, retryAfterSeconds: 0 })).resolves.toBeUndefined();
    await expect(run({ allowed: false, limit: 5, remaining: 0, retryAfterSeconds: 9 })).rejects.toMatchObject({ extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 9 } });
  });
});
