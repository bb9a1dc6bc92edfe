// The schema tools as a library; `compose-supergraph.ts` is `npm run supergraph`, `check-schema.ts` is `npm run schema:check`.
export { composeSupergraph, subgraphSdls } from './supergraph';
export { checkSupergraph } from './schema-check';
export type { SchemaCheckReport } from './schema-check';
