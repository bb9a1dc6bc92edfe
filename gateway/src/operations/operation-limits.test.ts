import { AppError, loadConfig } from '@em/core';
import { Supergraph } from '@apollo/federation-internals';
import { getIntrospectionQuery } from 'graphql';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROUTES } from '@em/rest-adapter';
import { EXAMPLE_OPERATIONS } from '../landing-page';
import { OperationLimiter, operationLimitsOf } from './operation-limits';

const supergraph = readFileSync(path.join(__dirname, '..', '..', '..', 'supergraph.graphql'), 'utf8');
const schema = Supergraph.build(supergraph).apiSchema().toGraphQLJSSchema();
const limiter = new OperationLimiter(schema, operationLimitsOf(loadConfig({ DATA_DIR: '/nonexistent' })));

function refusal(query: string): string | null {
  try {
    limiter.check(query);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('BAD_REQUEST');
    return (err as AppError).message;
  }
}

const ping = 'ping(orgId: 1, eventId: 1) { status }';

describe('OperationLimiter', () => {
  it('lets every operation of the REST routes, the sandbox examples and introspection pass with the defaults', () => {
    for (const route of ROUTES) expect([route.path, refusal(route.operation)]).toEqual([route.path, null]);
    for (const [name, query] of Object.entries(EXAMPLE_OPERATIONS))
      expect([name, refusal(query)]).toEqual([name, null]);
    expect(refusal(getIntrospectionQuery())).toBeNull();
  });

  it('gives the same answer every time for the same text (a refusal is never remembered as a pass)', () => {
    const tooMany = `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: ${ping}`).join(' ')} }`;
    const fine = `{ ${ping} }`;
    for (let i = 0; i < 3; i++)
      expect([refusal(tooMany), refusal(fine)]).toEqual([expect.stringMatching(/alias/i), null]);
  });

  it('refuses too many tokens before parsing the rest', () => {
    // The text ends in a syntax error, which the limiter leaves to Apollo: refused for its tokens, the rest was never parsed.
    const aliases = Array.from({ length: 20_000 }, (_, i) => `a${i}: ${ping}`).join(' ');
    expect(refusal(`query { ${aliases} ping(`)).toMatch(/Token limit of 2000/);
  });

  it('refuses too many aliases, also through fragments', () => {
    const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: status`).join(' ');
    expect(refusal(`query { ping(orgId: 1, eventId: 1) { ${aliases(15)} } }`)).toBeNull();
    expect(refusal(`query { ping(orgId: 1, eventId: 1) { ${aliases(16)} } }`)).toMatch(
      /Aliases limit of 15 exceeded, found 16/,
    );
    expect(
      refusal(
        `query { ping(orgId: 1, eventId: 1) { ...F ...G } } fragment F on Ping { ${aliases(8)} } fragment G on Ping { ...F }`,
      ),
    ).toMatch(/Aliases limit of 15 exceeded/);
  });

  it('refuses too many root fields, counted through inline and named fragments', () => {
    expect(refusal(`query { ${Array.from({ length: 11 }, () => ping).join(' ')} }`)).toMatch(
      /Root field limit of 10 exceeded, found 11/,
    );
    expect(
      refusal(
        `query { ... on Query { ${Array.from({ length: 6 }, () => ping).join(' ')} } ...F } fragment F on Query { ${Array.from({ length: 5 }, () => ping).join(' ')} }`,
      ),
    ).toMatch(/found 11/);
  });

  it('refuses fragments that expand exponentially', () => {
    const chain = Array.from({ length: 40 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join(
      ' ',
    );
    // Expanded, the chain is 2^40 fields: an answer at all (within the test's budget) shows it was not expanded.
    expect(refusal(`query { ...F0 } ${chain} fragment F40 on Query { __typename }`)).toMatch(/expand to more than/);
  });

  it('refuses deep nesting and many directives', () => {
    const nested = (depth: number) => `query { ${'a { '.repeat(depth - 1)}b${' }'.repeat(depth - 1)} }`;
    expect(refusal(nested(10))).toBeNull();
    expect(refusal(nested(11))).toMatch(/depth limit of 10 exceeded, found 11/);
    expect(refusal(`query { __typename ${'@include(if: true) '.repeat(20)} }`)).toBeNull();
    expect(refusal(`query { __typename ${'@include(if: true) '.repeat(21)} }`)).toMatch(
      /Directives limit of 20 exceeded/,
    );
  });

  it('leaves queries that do not parse to Apollo', () => {
    expect(refusal('query { ping(')).toBeNull();
    expect(refusal(undefined as unknown as string)).toBeNull();
  });
});
