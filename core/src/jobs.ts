/** Queues, job names and payloads shared by the services that enqueue and the ml-worker that runs them. */
export const QUEUES = {
  photos: 'photo-processing',
} as const;

export const JOBS = {
  processPhoto: 'process-photo',
} as const;

export interface ProcessPhotoJob {
  photoId: string;
}

/** One job per photo: enqueuing the same photo twice while a job exists is a no-op. */
export const processPhotoJobId = (photoId: string) => `photo-${photoId}`;

export const DEFAULT_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;
