import { config } from '@em/core';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  GENERATED_OPERATIONS_FILE,
  generateOperationTypes,
  operationTypesDifference,
  readOperationSources,
} from './operation-types';
import { checkSupergraph } from './schema-check';
import { composeSupergraph } from './supergraph';

/**
 * `npm run schema:check` (CI): the subgraphs must compose (errors print with their codes) and the
 * composition must equal the committed supergraph.graphql; otherwise the API changes are listed,
 * breaking ones first. The REST adapter's operations must fit the committed supergraph, and their
 * generated typed documents must be the committed ones. Any failure exits 1.
 */
async function main() {
  const target = config().SUPERGRAPH_PATH;
  const committedSdl = readFileSync(target, 'utf8');
  const composed = await composeSupergraph();
  const report = await checkSupergraph(committedSdl, composed);
  let ok = report.ok;
  if (report.ok) {
    console.log(`schema check: the subgraphs compose, and ${target} is their composition`);
  } else {
    const breaking = report.changes.filter((c) => c.level === 'BREAKING').length;
    console.error(
      `schema check failed: ${target} is not the composition of the subgraphs (${report.changes.length} API changes, ${breaking} breaking)`,
    );
    for (const c of report.changes) console.error(`  [${c.level}] ${c.message}`);
    if (!report.changes.length) console.error('  (no API-level change: directives or routing differ)');
    console.error('If the change is intended, run `npm run supergraph` and commit supergraph.graphql with it.');
  }

  const generatedFile = path.relative(process.cwd(), GENERATED_OPERATIONS_FILE);
  try {
    const generated = await generateOperationTypes(committedSdl, readOperationSources());
    const difference = operationTypesDifference(
      existsSync(GENERATED_OPERATIONS_FILE) ? readFileSync(GENERATED_OPERATIONS_FILE, 'utf8') : null,
      generated,
    );
    if (difference) {
      ok = false;
      console.error(`schema check failed: ${generatedFile} is stale (${difference}).`);
      console.error('Run `npm run codegen` and commit the generated file with the operations or schema that changed.');
    } else {
      console.log(`schema check: ${generatedFile} is the typed documents of the REST adapter's operations`);
    }
  } catch (err) {
    ok = false;
    console.error(`schema check failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!ok) process.exit(1);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
