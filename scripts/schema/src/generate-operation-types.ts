import { config } from '@em/core';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GENERATED_OPERATIONS_FILE, generateOperationTypes, readOperationSources } from './operation-types';

/** `npm run codegen`: writes the REST adapter's typed documents from its operations and supergraph.graphql. */
generateOperationTypes(readFileSync(config().SUPERGRAPH_PATH, 'utf8'), readOperationSources())
  .then((code) => {
    mkdirSync(path.dirname(GENERATED_OPERATIONS_FILE), { recursive: true });
    writeFileSync(GENERATED_OPERATIONS_FILE, code);
    console.log(`typed operations written to ${GENERATED_OPERATIONS_FILE}`);
  })
  .catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
