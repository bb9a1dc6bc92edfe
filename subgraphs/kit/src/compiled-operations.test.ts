import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { AppError, createLogger } from '@em/core';
import { parse } from 'graphql';
import { COMPILED_MAX_QUERY_CHARS, CompiledOperations } from './compiled-operations';
import { formatSubgraphError } from './errors';

const typeDefs = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])
  type Photo @key(fields: "id") { id: ID! width: Int! caption: String }
  type Query {
    photos(eventId: Int!, first: Int): [Photo!]!
    forbidden: Photo
    broken: Photo!
  }
  type Mutation { publish(eventId: Int!): Int! }
`);

const photos = [
  { id: 'a', width: 10, caption: null },
  { id: 'b', width: 20, caption: 'finish line' },
];
let published = 0;
const schema = buildSubgraphSchema({
  typeDefs,
  resolvers: {
    Query: {
      photos: (_: unknown, args: { eventId: number; first?: number }) => photos.slice(0, args.first ?? photos.length),
      forbidden: () => {
        throw new AppError('FORBIDDEN', 'The feature bib_search is not enabled for this event');
      },
      broken: () => null,
    },
    Mutation: { publish: () => ++published },
    Photo: { __resolveReference: (ref: { id: string }) => photos.find((p) => p.id === ref.id) ?? null },
  },
});

const logger = createLogger('test');
logger.level = 'silent';
const formatError = formatSubgraphError(logger);
const compiled = new CompiledOperations(schema, formatError, 3);
const apollo = new ApolloServer({
  schema,
  formatError,
  includeStacktraceInErrorResponses: false,
  plugins: [ApolloServerPluginInlineTraceDisabled()],
});
const context = { principal: {}, requestId: 'r1' };

/** What Apollo Server answers for the same request, as JSON text. */
async function apolloAnswer(query: string, variables?: Record<string, unknown>) {
  const response = await apollo.executeOperation({ query, variables }, { contextValue: context });
  if (response.body.kind !== 'single') throw new Error('not a single result');
  return { status: response.http.status ?? 200, json: JSON.parse(JSON.stringify(response.body.singleResult)) };
}

async function compiledJson(query: string, variables?: Record<string, unknown>, operationName?: string) {
  const answer = await compiled.run({ query, variables, operationName }, context);
  return answer && { ...answer, json: JSON.parse(answer.body) };
}

beforeAll(() => apollo.start());
afterAll(() => apollo.stop());

describe('CompiledOperations', () => {
  it('answers a query with aliases and variables as Apollo does, labelled by its first root field', async () => {
    const query = 'query Gallery($e: Int!, $n: Int) { photos(eventId: $e, first: $n) { key: id width text: caption } }';
    const answer = await compiledJson(query, { e: 5, n: 2 });
    expect(answer?.json).toEqual({
      data: {
        photos: [
          { key: 'a', width: 10, text: null },
          { key: 'b', width: 20, text: 'finish line' },
        ],
      },
    });
    expect(answer?.json).toEqual((await apolloAnswer(query, { e: 5, n: 2 })).json);
    expect(answer).toMatchObject({ label: 'photos', errorCode: null, dataOnly: true });
    expect(answer?.body.endsWith('\n')).toBe(true);
  });

  it('formats an error raised by a resolver as Apollo and the subgraph formatter do (code, path)', async () => {
    const query = '{ first: photos(eventId: 1) { id } forbidden { id } }';
    const answer = await compiledJson(query);
    expect(answer?.json).toEqual({
      errors: [
        {
          message: 'The feature bib_search is not enabled for this event',
          path: ['forbidden'],
          extensions: { code: 'FORBIDDEN' },
        },
      ],
      data: { first: [{ id: 'a' }, { id: 'b' }], forbidden: null },
    });
    expect(answer?.json).toEqual((await apolloAnswer(query)).json);
    expect(answer).toMatchObject({
      errorCode: 'FORBIDDEN',
      firstError: 'The feature bib_search is not enabled for this event',
      dataOnly: false,
    });
  });

  it('propagates a null of a non-null field to the root and reports it as an internal error, as Apollo does', async () => {
    const answer = await compiledJson('{ broken { id } }');
    expect(answer?.json).toEqual({
      errors: [{ message: 'Internal error', path: ['broken'], extensions: { code: 'INTERNAL' } }],
      data: null,
    });
    expect(answer?.json).toEqual((await apolloAnswer('{ broken { id } }')).json);
  });

  it('leaves a variable coercion error to Apollo (nothing has run; Apollo answers 400 BAD_USER_INPUT)', async () => {
    const query = 'query Q($e: Int!) { photos(eventId: $e) { id } }';
    expect(await compiled.run({ query, variables: { e: 'five' } }, context)).toBeNull();
    expect(await compiled.run({ query, variables: {} }, context)).toBeNull();
    const apolloSide = await apolloAnswer(query, { e: 'five' });
    expect(apolloSide.status).toBe(400);
    expect(apolloSide.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    // The same text with good variables then runs compiled.
    expect((await compiledJson(query, { e: 1 }))?.json).toEqual({ data: { photos: [{ id: 'a' }, { id: 'b' }] } });
  });

  it('leaves mutations, documents that do not parse or validate, and odd bodies to Apollo', async () => {
    expect(await compiled.run({ query: 'mutation { publish(eventId: 1) }' }, context)).toBeNull();
    expect(published).toBe(0);
    expect(await compiled.run({ query: '{ photos(eventId: 1) { id ' }, context)).toBeNull();
    expect(await compiled.run({ query: '{ photos(eventId: 1) { nope } }' }, context)).toBeNull();
    expect(
      await compiled.run({ query: 'query A { photos(eventId: 1) { id } } query B { broken { id } }' }, context),
    ).toBeNull();
    for (const body of [
      null,
      [],
      'x',
      { query: 1 },
      { query: '{ broken { id } }', extensions: { persistedQuery: {} } },
      { query: '{ broken { id } }', variables: [] },
    ]) {
      expect(await compiled.run(body, context)).toBeNull();
    }
  });

  it('picks the named operation of a document with several', async () => {
    const query = 'query A { photos(eventId: 1) { id } } query B { photos(eventId: 1, first: 1) { width } }';
    expect((await compiledJson(query, undefined, 'B'))?.json).toEqual({ data: { photos: [{ width: 10 }] } });
  });

  it('serves federation: _entities with __typename, and _service', async () => {
    const query = 'query ($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Photo { id width } } }';
    const variables = {
      r: [
        { __typename: 'Photo', id: 'b' },
        { __typename: 'Photo', id: 'zz' },
      ],
    };
    const answer = await compiledJson(query, variables);
    expect(answer?.json).toEqual({ data: { _entities: [{ __typename: 'Photo', id: 'b', width: 20 }, null] } });
    expect(answer?.json).toEqual((await apolloAnswer(query, variables)).json);
    expect((await compiledJson('{ _service { sdl } }'))?.json.data._service.sdl).toContain('type Photo');
  });

  it('leaves a text longer than it compiles to Apollo, and holds nothing for it', async () => {
    const fresh = new CompiledOperations(schema, formatError, 3);
    const query = '{ photos(eventId: 1) { id } }';
    expect(await fresh.run({ query: `${query} #${'x'.repeat(COMPILED_MAX_QUERY_CHARS)}` }, context)).toBeNull();
    expect(
      await fresh.run({ query: `{ photos(eventId: 1) { ${'a'.repeat(COMPILED_MAX_QUERY_CHARS)}: id } }` }, context),
    ).toBeNull();
    expect((fresh as unknown as { cache: { size: number } }).cache.size).toBe(0);
    expect(await fresh.run({ query }, context)).not.toBeNull();
  });

  it('keeps at most its bound of compiled documents', async () => {
    for (let n = 1; n <= 5; n++) await compiled.run({ query: `{ photos(eventId: ${n}) { id } }` }, context);
    expect((compiled as unknown as { cache: { size: number } }).cache.size).toBe(3);
  });
});
