import { Migrator } from '@mikro-orm/migrations';
import { MIGRATIONS } from './migrations';
import type { Orm } from './orm';

/**
 * Applies pending migrations (up to and including `to` when given: a test of an upgrade from an older release);
 * returns the names applied. The migrator is registered here, not in every ORM:
 * only the launcher, `npm run migrate` and the tests migrate, and a service's start does not load its modules.
 */
export async function migrateDatabase(orm: Orm, { to }: { to?: string } = {}): Promise<string[]> {
  orm.config.set('migrations', {
    ...orm.config.get('migrations'),
    migrationsList: MIGRATIONS,
    transactional: true,
    allOrNothing: true,
    snapshot: false,
  });
  Migrator.register(orm);
  const applied = await orm.getMigrator().up(to ? { to } : undefined);
  return applied.map((m) => m.name);
}
