import { OPERATION_POLICY } from '@em/core';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Kind, parse } from 'graphql';
import { makeSubscriptionSchema } from './subscriptions/schema';

const ROOT_TYPES = new Set(['Query', 'Mutation', 'Subscription']);

/** Root fields of the composed API (supergraph.graphql) and of the gateway's own subscription schema. */
function apiRootFields(): string[] {
  const supergraph = parse(readFileSync(path.resolve(__dirname, '../../supergraph.graphql'), 'utf8'));
  const fields = supergraph.definitions.flatMap((d) =>
    (d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.OBJECT_TYPE_EXTENSION) && ROOT_TYPES.has(d.name.value)
      ? (d.fields ?? []).map((f) => f.name.value)
      : [],
  );
  const subscription = makeSubscriptionSchema(async function* () {}).getSubscriptionType();
  return [...fields, ...Object.keys(subscription?.getFields() ?? {})];
}

describe('the operation policy table', () => {
  const fields = apiRootFields();

  it('has a row for every root field of the API', () => {
    expect(fields.length).toBeGreaterThan(20);
    expect(fields.filter((name) => !Object.prototype.hasOwnProperty.call(OPERATION_POLICY, name))).toEqual([]);
  });

  it('has no row for a field the API does not have', () => {
    expect(Object.keys(OPERATION_POLICY).filter((name) => !fields.includes(name))).toEqual([]);
  });
});
