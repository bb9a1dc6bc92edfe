import { Migration20261122Initial } from './Migration20261122Initial';

export const MIGRATIONS = [{ name: 'Migration20261122Initial', class: Migration20261122Initial }];
