import { buildSubgraphSchema } from '@apollo/subgraph';
import { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { GraphQLSchema, parse } from 'graphql';
import { BuildSchemaOptions, buildSchema, createResolversMap } from 'type-graphql';

const FEDERATION_LINK = `extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@shareable", "@external", "@requires", "@provides", "@inaccessible", "@tag"])`;

type ReferenceResolvers = Record<string, { __resolveReference: (reference: never, context: never) => unknown }>;

/**
 * A type-graphql schema turned into an Apollo Federation 2 subgraph schema: the type-graphql
 * schema is printed with its directives (@key, @shareable), then built again by @apollo/subgraph
 * with the same resolvers plus the entities' reference resolvers.
 */
export async function buildFederatedSchema(
  options: Omit<BuildSchemaOptions, 'skipCheck'>,
  referenceResolvers: ReferenceResolvers = {},
): Promise<GraphQLSchema> {
  const schema = await buildSchema({ ...options, skipCheck: true });
  const resolvers = createResolversMap(schema) as Record<string, object>;
  for (const [typeName, resolver] of Object.entries(referenceResolvers)) {
    resolvers[typeName] = { ...(resolvers[typeName] ?? {}), ...resolver };
  }
  return buildSubgraphSchema({
    typeDefs: parse(`${FEDERATION_LINK}\n${printSchemaWithDirectives(schema)}`),
    resolvers: resolvers as GraphQLResolverMap<unknown>,
  });
}
