import { FieldNode, OperationDefinitionNode, parse } from 'graphql';
import { RateDecision, RateGrant } from '@em/core';
import { chargeCaller, chargeOf, rateLimitPlugin } from './rate-limit-plugin';
import { fragmentsOf, rootFieldsOf } from './operations/root-fields';

const fieldsOf = (query: string): FieldNode[] => {
  const document = parse(query);
  return rootFieldsOf(document.definitions[0] as OperationDefinitionNode, fragmentsOf(document));
};
const neverCached = async () => false;

describe('chargeOf', () => {
  it('charges one face-matching unit per matching root field, fragments included', async () => {
    expect(
      await chargeOf(
        fieldsOf(
          'mutation { a: startVideoClipping b: startVideoClipping ... on Mutation { searchFaces } ...F } fragment F on Mutation { searchFaces }',
        ),
        neverCached,
      ),
    ).toEqual({
      cls: 'matching',
      units: 4,
    });
  });

  it('charges one read for an operation without face matching', async () => {
    expect(await chargeOf(fieldsOf('query { ping events }'), neverCached)).toEqual({ cls: 'read', units: 1 });
  });

  it('counts a cached face-search retry as a read, field by field', async () => {
    const cachedWhenRetry = async (field: FieldNode) =>
      field.arguments?.some((a) => a.name.value === 'requestId') ?? false;
    expect(await chargeOf(fieldsOf('mutation { searchFaces(requestId: "r") }'), cachedWhenRetry)).toEqual({
      cls: 'read',
      units: 1,
    });
    expect(
      await chargeOf(fieldsOf('mutation { a: searchFaces(requestId: "r") b: searchFaces }'), cachedWhenRetry),
    ).toEqual({ cls: 'matching', units: 1 });
  });
});

describe('rateLimitPlugin with a charge the single-fetch path already took', () => {
  const plugin = rateLimitPlugin(
    { consumeGrant: async () => Promise.reject(new Error('charged twice')), defaultLimit: () => 1 } as never,
    {} as never,
  );
  const run = async (precharged: RateDecision) => {
    const hooks = (await plugin.requestDidStart!({} as never)) as {
      didResolveOperation: (ctx: unknown) => Promise<void>;
      willSendResponse: (ctx: unknown) => Promise<void>;
    };
    const contextValue = { rateSubject: 'key:1', precharged };
    const document = parse('{ ping(orgId: 1, eventId: 1) { status } }');
    await hooks.didResolveOperation({ contextValue, document, operation: document.definitions[0], request: {} });
    await hooks.willSendResponse({ contextValue });
  };

  it('does not charge again, and refuses with 429 when that charge was refused', async () => {
    await expect(run({ allowed: true, limit: 5, remaining: 4, retryAfterSeconds: 0 })).resolves.toBeUndefined();
    await expect(run({ allowed: false, limit: 5, remaining: 0, retryAfterSeconds: 9 })).rejects.toMatchObject({
      extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 9 },
    });
  });
});

describe('chargeCaller', () => {
  /** Counters in memory, as the limiter's: `limit` per subject and class. */
  function countingLimiter(limits: { read: number; matching: number; sharedRead: number; sharedMatching: number }) {
    const counts = new Map<string, number>();
    return {
      counts,
      defaultLimit: (cls: 'read' | 'matching') => limits[cls],
      sharedLimit: (cls: 'read' | 'matching') => (cls === 'read' ? limits.sharedRead : limits.sharedMatching),
      consume: async (cls: string, subject: string, limit: number, units = 1): Promise<RateDecision> => {
        const key = `${cls}:${subject}`;
        const count = (counts.get(key) ?? 0) + units;
        counts.set(key, count);
        return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), retryAfterSeconds: 7 };
      },
      // As RateLimiter.consumeGrant's script: the shared ceiling is charged only when the own budget allowed.
      async consumeGrant(cls: string, grant: RateGrant, units = 1): Promise<RateDecision> {
        const own = await this.consume(cls, grant.subject, grant.limit, units);
        return !own.allowed || !grant.shared ? own : this.consume(cls, grant.shared.subject, grant.shared.limit, units);
      },
    };
  }
  const matching = { cls: 'matching' as const, units: 1 };

  it("charges a browser key's visitor and the key's shared ceiling; a visitor refused spends nothing of the ceiling", async () => {
    const limiter = countingLimiter({ read: 100, matching: 2, sharedRead: 1000, sharedMatching: 3 });
    const visitor = (ip: string) => ({ rateSubject: `key:4:client:${ip}`, sharedRateSubject: 'key:4' });
    const allowed = async (ip: string) => (await chargeCaller(limiter as never, visitor(ip), matching)).allowed;
    expect([await allowed('a'), await allowed('a'), await allowed('a'), await allowed('a')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(limiter.counts.get('matching:key:4')).toBe(2);
    // Another visitor has a budget of their own, until the key's ceiling is spent.
    expect([await allowed('b'), await allowed('c')]).toEqual([true, false]);
  });

  it('charges a server key once, against its own budget', async () => {
    const limiter = countingLimiter({ read: 100, matching: 2, sharedRead: 1000, sharedMatching: 1 });
    for (let i = 0; i < 2; i++)
      expect((await chargeCaller(limiter as never, { rateSubject: 'key:1' }, matching)).allowed).toBe(true);
    expect([...limiter.counts.keys()]).toEqual(['matching:key:1']);
  });
});
