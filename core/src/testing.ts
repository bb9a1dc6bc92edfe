/** In-memory fakes of the repositories, for unit tests (import `@em/core/dist/testing` from test files only). */
export * from './repositories/fakes/organisations.fake';
export * from './repositories/fakes/accounts.fake';
export * from './repositories/fakes/memberships.fake';
export * from './repositories/fakes/api-keys.fake';
export * from './repositories/fakes/events.fake';
