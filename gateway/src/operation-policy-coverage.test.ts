import { OPERATION_POLICY } from '@em/core';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Kind, parse } from 'graphql';
import { makeSubscriptionSchema } from './subscriptions/schema';

const ROOT_TYPES = new Set(['Query', 'Mutation', 'Subscription']);

/** Root fields of the composed supergraph (supergraph.graphql), each with whether it is @inaccessible. */
function supergraphRootFields(): Array<{ name: string; inaccessible: boolean }> {
  const supergraph = parse(readFileSync(path.resolve(__dirname, '../../supergraph.graphql'), 'utf8'));
  return supergraph.definitions.flatMap((d) =>
    (d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.OBJECT_TYPE_EXTENSION) && ROOT_TYPES.has(d.name.value)
      ? (d.fields ?? []).map((f) => ({
          name: f.name.value,
          inaccessible: (f.directives ?? []).some((directive) => directive.name.value === 'inaccessible'),
        }))
      : [],
  );
}

/** Root fields of the API (the supergraph's but its @inaccessible ones) and of the gateway's subscription schema. */
function apiRootFields(): string[] {
  const fields = supergraphRootFields().filter((f) => !f.inaccessible);
  const subscription = makeSubscriptionSchema(async function* () {}).getSubscriptionType();
  return [...fields.map((f) => f.name), ...Object.keys(subscription?.getFields() ?? {})];
}

describe('the operation policy table', () => {
  const fields = apiRootFields();

  it("leaves out the gateway's internal fields (@inaccessible: no client can name them)", () => {
    const internal = supergraphRootFields().filter((f) => f.inaccessible);
    expect(internal.map((f) => f.name).sort()).toEqual(['currentClipStatus', 'storedFaceSearch']);
    expect(fields).not.toContain('storedFaceSearch');
  });

  it('has a row for every root field of the API', () => {
    expect(fields.length).toBeGreaterThan(20);
    expect(fields.filter((name) => !Object.prototype.hasOwnProperty.call(OPERATION_POLICY, name))).toEqual([]);
  });

  it('has no row for a field the API does not have', () => {
    expect(Object.keys(OPERATION_POLICY).filter((name) => !fields.includes(name))).toEqual([]);
  });
});
