// The repositories (one per aggregate: every query of its table), exported through @em/core/data.
export * from './repository-source';
export * from './face-rows';
export * from './photos.repository';
export * from './face-searches.repository';
export * from './clip-requests.repository';
export * from './videos.repository';
export * from './events.repository';
export * from './organisations.repository';
export * from './accounts.repository';
export * from './memberships.repository';
export * from './api-keys.repository';
export * from './usage.repository';
export * from './start-list.repository';
export * from './local-credentials.repository';

/** Hands a repository the entity manager of the current unit of work (a request context, a CLI fork). */
export type EntityManagerSource = () => import('@mikro-orm/core').EntityManager;
export * from './audit-log.repository';
