// @em/core/jobs: the job registry and queues (BullMQ).
export * from './registry';
export * from './job-queues';
export * from './reembed-faces';
export * from './fair-share';
