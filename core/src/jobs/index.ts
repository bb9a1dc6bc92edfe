export * from './registry';
export * from './job-queues';
