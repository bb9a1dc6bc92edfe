// @em/core/migrate: the schema's migrations, for what migrates (the launcher, `npm run migrate`, tests).
export { migrateDatabase } from './db/migrate';
