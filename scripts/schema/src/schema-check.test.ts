import { composeServices } from '@apollo/composition';
import { parse } from 'graphql';
import { checkSupergraph } from './schema-check';

const compose = (typeDefs: string) => {
  const result = composeServices([
    {
      name: 'a',
      url: 'http://a/graphql',
      typeDefs: parse(
        `extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"]) ${typeDefs}`,
      ),
    },
  ]);
  if (result.errors?.length) throw new Error(result.errors.map((e) => e.message).join('; '));
  return result.supergraphSdl!;
};

describe('checkSupergraph', () => {
  const before = compose('type Query { photo(id: ID!): Photo } type Photo { id: ID! url: String! }');

  it('passes when the committed supergraph is the composition', async () => {
    expect(await checkSupergraph(before, before)).toEqual({ ok: true, changes: [] });
  });

  it('fails on a removed field and names it breaking', async () => {
    const after = compose('type Query { photo(id: ID!): Photo } type Photo { id: ID! }');
    const report = await checkSupergraph(before, after);
    expect(report.ok).toBe(false);
    expect(report.changes[0]).toEqual({ level: 'BREAKING', message: expect.stringContaining("'url' was removed") });
  });

  it('fails on an added field too (the committed file must be updated), as non-breaking', async () => {
    const after = compose('type Query { photo(id: ID!): Photo } type Photo { id: ID! url: String! width: Int }');
    const report = await checkSupergraph(before, after);
    expect(report.ok).toBe(false);
    expect(report.changes).toEqual([{ level: 'NON_BREAKING', message: expect.stringContaining('width') }]);
  });
});
