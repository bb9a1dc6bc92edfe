import { composeServices } from '@apollo/composition';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'graphql';
import type { OperationSource } from './operation-types';

/**
 * The generator runs in its own Node process, from the built module: the code generator's plugins load an
 * ES module (auto-bind) that Node requires natively but jest's module loader cannot.
 */
const BUILT = path.join(__dirname, '..', 'dist', 'operation-types.js');
async function inNode<T>(script: string, input: unknown): Promise<T> {
  const code = `const m = require(${JSON.stringify(BUILT)}); const input = JSON.parse(process.argv[1]);
    (async () => ${script})().then((out) => process.stdout.write(JSON.stringify({ out })), (err) => process.stdout.write(JSON.stringify({ err: err.message })));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', code, JSON.stringify(input)], {
    maxBuffer: 16 * 1024 * 1024,
  });
  const result = JSON.parse(stdout) as { out?: T; err?: string };
  if (result.err !== undefined) throw new Error(result.err);
  return result.out as T;
}
const generateOperationTypes = (supergraph: string, sources: OperationSource[]) =>
  inNode<string>('m.generateOperationTypes(input.supergraph, input.sources)', { supergraph, sources });

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

const SUPERGRAPH = compose(
  'type Query { photo(id: ID!): Photo! } type Photo { id: ID! url: String! width: Int page: Page! } type Page { total: Int! }',
);
const FRAGMENTS = {
  location: 'fragments.graphql',
  content: 'fragment PhotoFields on Photo { id url page { ...PageFields } } fragment PageFields on Page { total }',
};

describe('generateOperationTypes', () => {
  it('types an operation from the API schema (no federation types) and sends it with its fragments opened', async () => {
    const code = await generateOperationTypes(SUPERGRAPH, [
      FRAGMENTS,
      { location: 'photo.graphql', content: 'query OnePhoto($id: ID!) { photo(id: $id) { ...PhotoFields width } }' },
    ]);
    expect(code).toContain(
      'export type OnePhotoQuery = { photo: { id: string, url: string, width: number | null, page: { total: number } } };',
    );
    expect(code).toContain('export type OnePhotoQueryVariables = Exact<{\n  id: string | number;\n}>;');
    const text = /OnePhotoDocument = new TypedDocumentString\(`([^`]*)`/.exec(code)![1];
    expect(text).not.toMatch(/fragment|\.\.\./);
    expect(text.replace(/\s+/g, ' ').trim()).toBe(
      'query OnePhoto($id: ID!) { photo(id: $id) { id url page { total } width } }',
    );
    expect(code).not.toMatch(/join__|link__/);
  });

  it('refuses an operation that does not fit the schema, naming the file and the field', async () => {
    await expect(
      generateOperationTypes(SUPERGRAPH, [
        { location: 'photo.graphql', content: 'query P { photo(id: "1") { height } }' },
      ]),
    ).rejects.toThrow(/Cannot query field "height" on type "Photo"[\s\S]*photo\.graphql:1/);
  });
});

describe('operationTypesDifference', () => {
  it('names the first line that differs, or the missing file', async () => {
    const difference = (committed: string | null, generated: string) =>
      inNode<string | null>('m.operationTypesDifference(input.committed, input.generated)', { committed, generated });
    expect(await difference('a\nb\n', 'a\nb\n')).toBeNull();
    expect(await difference('a\nb\n', 'a\nc\n')).toBe('first difference at line 2: committed "b", generated "c"');
    expect(await difference(null, 'a')).toBe('the file is missing');
  });
});
