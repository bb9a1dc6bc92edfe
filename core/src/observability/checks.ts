import type { Redis } from 'ioredis';
import { Orm } from '../db/orm';
import { ObjectStore } from '../storage/object-store';
import { DependencyCheck } from './metrics';

/** The usual dependency checks: Postgres answers a query, Redis a PING, S3 a HEAD of the bucket. */
export const checks = {
  postgres: (orm: Orm): DependencyCheck => ({
    name: 'postgres',
    check: () => orm.em.getConnection().execute('select 1'),
  }),
  redis: (redis: Redis): DependencyCheck => ({ name: 'redis', check: () => redis.ping() }),
  s3: (store: ObjectStore): DependencyCheck => ({ name: 's3', check: () => store.exists('.readiness-probe') }),
};
