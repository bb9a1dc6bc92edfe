import { Migrator } from '@mikro-orm/migrations';
import { MIGRATIONS } from './migrations';
import type { Orm } from './orm';

/**
 * Applies pending migrations; returns the names applied. The migrator is registered here, not in every ORM:
 * only the launcher, `npm run migrate` and the tests migrate, and a service's start does not load its modules.
 */
export async function migrateDatabase(orm: Orm): Promise<string[]> {
  orm.config.set('migrations', {
    ...orm.config.get('migrations'),
    migrationsList: MIGRATIONS,
    transactional: true,
    allOrNothing: true,
    snapshot: false,
  });
  Migrator.register(orm);
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
