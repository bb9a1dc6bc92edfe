import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from '../db/orm';
import type { StatementSource } from '../db/prepared';

/**
 * What every repository is built on: the ORM (a fork of its entity manager per call) or the entity
 * manager of one unit of work (a request context, a CLI fork, a transaction).
 */
export type RepositorySource = Orm | (() => EntityManager);

export interface RepositoryHandle {
  /** The entity manager a call uses. */
  em: () => EntityManager;
  /** Where prepared statements run: the ORM's pool (each takes a pooled connection of its own). */
  statements: () => StatementSource;
}

export function repositoryHandle(source: RepositorySource): RepositoryHandle {
  return typeof source === 'function'
    ? { em: source, statements: source }
    : { em: () => source.em.fork(), statements: () => source };
}
