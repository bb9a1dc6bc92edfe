// @em/core/data: Postgres through MikroORM: entities, the ORM, repositories, and
// what reads or writes tables (the operation guard, API keys, accounts, the published-photo queries).
export * from './db/entities';
export * from './db/orm';
// Services guard through the operation policy (operation-guard); only the federation test is exported.
export { accessOnly, assertPlatformAdmin, canReadEvent, canReadOrganisation, isEventScoped } from './guard';
export * from './operation-guard';
export * from './search/visible-matches';
export * from './repositories';
