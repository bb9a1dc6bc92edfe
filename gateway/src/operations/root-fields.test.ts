import { parse } from 'graphql';
import { fragmentsOf, FragmentExpansionError, rootFieldsOf, selectedOperation } from './root-fields';

const rootNames = (query: string, operationName?: string) => {
  const document = parse(query);
  return rootFieldsOf(selectedOperation(document, operationName), fragmentsOf(document)).map((f) => f.name.value);
};

describe('rootFieldsOf', () => {
  it('opens inline and named fragments, recursively', () => {
    expect(
      rootNames(
        'mutation { ... on Mutation { searchFaces } ...A } fragment A on Mutation { ...B x: startVideoClipping } fragment B on Mutation { searchFaces }',
      ),
    ).toEqual(['searchFaces', 'searchFaces', 'startVideoClipping']);
  });

  it('picks the named operation, and none when several are unnamed', () => {
    expect(rootNames('query A { ping } mutation B { searchFaces }', 'B')).toEqual(['searchFaces']);
    expect(rootNames('query A { ping } mutation B { searchFaces }')).toEqual([]);
  });

  it('does not loop on fragment cycles', () => {
    expect(rootNames('query { ...A } fragment A on Query { ping ...B } fragment B on Query { ...A }')).toEqual([
      'ping',
    ]);
  });

  it('stops on fragments that expand exponentially', () => {
    const chain = Array.from({ length: 30 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join(
      ' ',
    );
    expect(() => rootNames(`query { ...F0 } ${chain} fragment F30 on Query { ping }`)).toThrow(FragmentExpansionError);
  });
});
