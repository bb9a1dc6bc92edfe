// @em/core: the light shared library. Nothing here loads sharp, the AWS SDK, MikroORM or BullMQ
// (a test proves it); those live behind @em/core/data, /storage, /jobs and /media.
export * from './config';
export * from './errors';
export * from './pagination';
export * from './datetime';
export * from './ids';
export * from './logger';
export * from './principal';
export * from './auth/api-keys';
export * from './redis';
export * from './auth/tokens';
export * from './auth/token-issuer';
export * from './auth/rate-limiter';
export * from './auth/key-invalidation';
export * from './video/clip-status';
export * from './observability/metrics';
export * from './observability/checks';
export * from './operation-policy';
export * from './observability/operator-server';
export * from './auth/client-address';
export * from './lru-map';
export * from './json-depth';
export * from './bibs/bib-read-rule';
export * from './bibs/start-list-lookup';
export * from './content-version';
export * from './multipart-post';
export * from './audit-actor';
