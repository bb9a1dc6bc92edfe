// In-memory fakes for unit tests (imported by test files only, as `@em/core/dist/testing`).
export * from './repositories/fakes/events.fake';
export * from './repositories/fakes/photos.fake';
export * from './repositories/fakes/face-searches.fake';
export * from './repositories/fakes/videos.fake';
export * from './repositories/fakes/clip-requests.fake';
export * from './repositories/fakes/object-store.fake';
export * from './repositories/fakes/job-producer.fake';
export * from './repositories/fakes/principals.fake';
export * from './repositories/fakes/redis.fake';
export * from './repositories/fakes/media.fake';
export * from './repositories/fakes/organisations.fake';
export * from './repositories/fakes/accounts.fake';
export * from './repositories/fakes/memberships.fake';
export * from './repositories/fakes/api-keys.fake';
export * from './repositories/fakes/start-list.fake';
export * from './repositories/fakes/local-credentials.fake';
export * from './repositories/fakes/audit-log.fake';
