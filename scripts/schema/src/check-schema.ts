import { config } from '@em/core';
import { readFileSync } from 'node:fs';
import { checkSupergraph } from './schema-check';
import { composeSupergraph } from './supergraph';

/**
 * `npm run schema:check` (CI): the subgraphs must compose (errors print with their codes) and the
 * composition must equal the committed supergraph.graphql; otherwise the API changes are listed,
 * breaking ones first, and it exits 1.
 */
async function main() {
  const target = config().SUPERGRAPH_PATH;
  const composed = await composeSupergraph();
  const report = await checkSupergraph(readFileSync(target, 'utf8'), composed);
  if (report.ok) {
    console.log(`schema check: the subgraphs compose, and ${target} is their composition`);
    return;
  }
  const breaking = report.changes.filter((c) => c.level === 'BREAKING').length;
  console.error(`schema check failed: ${target} is not the composition of the subgraphs (${report.changes.length} API changes, ${breaking} breaking)`);
  for (const c of report.changes) console.error(`  [${c.level}] ${c.message}`);
  if (!report.changes.length) console.error('  (no API-level change: directives or routing differ)');
  console.error('If the change is intended, run `npm run supergraph` and commit supergraph.graphql with it.');
  process.exit(1);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
