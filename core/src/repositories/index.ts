// The repositories (one per aggregate: every query of its table), exported through @em/core/data.
export * from './face-rows';
export * from './photos.repository';
export * from './face-searches.repository';
export * from './clip-requests.repository';
export * from './videos.repository';
export * from './events.repository';
