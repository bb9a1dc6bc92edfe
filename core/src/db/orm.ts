import 'reflect-metadata';
import { MikroORM, Options } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Config } from '../config';
import { ENTITIES } from './entities';

export type Orm = MikroORM<PostgreSqlDriver>;

export function ormOptions(
  cfg: Pick<Config, 'DATABASE_URL' | 'DATABASE_POOL_MAX'>,
  overrides: Partial<Options<PostgreSqlDriver>> = {},
): Options<PostgreSqlDriver> {
  return {
    driver: PostgreSqlDriver,
    clientUrl: cfg.DATABASE_URL,
    entities: ENTITIES,
    forceUtcTimezone: true,
    pool: { min: 0, max: cfg.DATABASE_POOL_MAX },
    discovery: { disableDynamicFileAccess: true },
    allowGlobalContext: false,
    debug: false,
    ...overrides,
  };
}

export async function openDatabase(cfg: Pick<Config, 'DATABASE_URL' | 'DATABASE_POOL_MAX'>): Promise<Orm> {
  return MikroORM.init(ormOptions(cfg));
}

/**
 * A Postgres array literal for `= any(?::uuid[])` style parameters: raw queries expand a JS array
 * into a value list, so lists travel as one literal. For ids and numbers only (no quoting).
 */
export const sqlArray = (values: ReadonlyArray<string | number>): string => `{${values.join(',')}}`;
