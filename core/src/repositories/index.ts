export * from './organisations.repository';
export * from './accounts.repository';
export * from './memberships.repository';
export * from './api-keys.repository';
export * from './events.repository';
export * from './usage.repository';

/** Hands a repository the entity manager of the current unit of work (a request context, a CLI fork). */
export type EntityManagerSource = () => import('@mikro-orm/core').EntityManager;
