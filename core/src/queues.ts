import { Queue } from 'bullmq';
import { DEFAULT_JOB_OPTIONS, JOBS, processPhotoJobId, QUEUES } from './jobs';
import { connectRedis } from './redis';

/**
 * The photo-processing queue as producers see it. One job id per photo: a photo already waiting or
 * running is not queued twice; one whose last job finished (or failed for good) gets a fresh job.
 */
export class PhotoQueue {
  readonly queue: Queue;

  constructor(redisUrl: string) {
    this.queue = new Queue(QUEUES.photos, { connection: connectRedis(redisUrl) });
  }

  async enqueue(photoIds: string[]): Promise<number> {
    let added = 0;
    for (const photoId of photoIds) {
      const jobId = processPhotoJobId(photoId);
      const existing = await this.queue.getJob(jobId);
      if (existing) {
        const state = await existing.getState();
        if (state !== 'completed' && state !== 'failed' && state !== 'unknown') continue;
        await existing.remove();
      }
      await this.queue.add(JOBS.processPhoto, { photoId }, { jobId, ...DEFAULT_JOB_OPTIONS });
      added++;
    }
    return added;
  }

  /** Jobs not finished yet (waiting, delayed, running). */
  async pending(): Promise<number> {
    const counts = await this.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  async close(): Promise<void> {
    const connection = await this.queue.client;
    await this.queue.close();
    connection.disconnect();
  }
}
