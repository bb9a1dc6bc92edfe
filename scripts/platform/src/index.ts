// The development platform as a library (the bench and the e2e tests start platforms and
// embedded infrastructure with it); `start.ts` is `npm start`.
export { startPlatform } from './platform/platform';
export type { Platform, PlatformOptions, ServicePorts } from './platform/platform';
export { SERVICES, startServices } from './platform/services';
export type { ServiceDef } from './platform/services';
export { freePort, isPortInUse } from './platform/ports';
export { isAlive } from './platform/processes';
export { pingRedis, startEmbeddedRedis } from './embedded/redis';
export type { EmbeddedRedisHandle } from './embedded/redis';
export { startEmbeddedS3 } from './embedded/s3';
export type { EmbeddedS3, EmbeddedS3Options } from './embedded/s3';
export { buildSlideshow } from './seed/slideshow';
export type { Slide } from './seed/slideshow';
export { startEmbeddedPostgres } from './embedded/postgres';
export type { EmbeddedPostgresHandle, EmbeddedPostgresOptions } from './embedded/postgres';
