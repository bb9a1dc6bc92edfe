import 'reflect-metadata';
import { config } from '@em/core';
import { openDatabase } from '@em/core/data';
import { migrateDatabase } from '@em/core/migrate';

/** `npm run migrate` (and the deployment's migrate step): applies pending migrations, then exits. */
async function main() {
  const orm = await openDatabase(config());
  try {
    const applied = await migrateDatabase(orm);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'the database is up to date');
  } finally {
    await orm.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
