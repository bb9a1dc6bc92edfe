import { printSubgraphSchema } from '@apollo/subgraph';
import { GraphQLSchema } from 'graphql';
import { writeFileSync } from 'node:fs';

/**
 * The build step of a subgraph: writes its federated SDL to `file` (the package's `schema.graphql`),
 * the file the supergraph is composed from (`npm run supergraph`, `npm run schema:check`).
 */
export function writeSchemaFile(build: () => Promise<GraphQLSchema>, file: string): void {
  build()
    .then((schema) => writeFileSync(file, printSubgraphSchema(schema)))
    .catch((err) => {
      console.error(`could not write ${file}: ${err instanceof Error ? err.message : err}`);
      process.exit(1);
    });
}
