import { Queue } from 'bullmq';
import { CutClipsJob, cutClipsJobId, DEFAULT_JOB_OPTIONS, IndexVideoJob, indexVideoJobId, JOBS, processPhotoJobId, QUEUES } from './jobs';
import { connectRedis } from './redis';

/**
 * Adds a job under a stable id unless one with that id is waiting or running; a finished (or
 * finally failed) job with the id is replaced. Returns whether a job was added.
 */
export async function enqueueOnce(queue: Queue, name: string, data: object, jobId: string, opts: object = DEFAULT_JOB_OPTIONS): Promise<boolean> {
  const existing = await queue.getJob(jobId);
  if (existing) {
    const state = await existing.getState();
    if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return false;
    await existing.remove();
  }
  await queue.add(name, data, { jobId, ...opts });
  return true;
}

/**
 * The photo-processing queue as producers see it. One job id per photo: a photo already waiting or
 * running is not queued twice; one whose last job finished (or failed for good) gets a fresh job.
 */
export class PhotoQueue {
  readonly queue: Queue;

  constructor(redisUrl: string) {
    this.queue = new Queue(QUEUES.photos, { connection: connectRedis(redisUrl) });
  }

  async enqueue(photoIds: string[], httpRequestId?: string): Promise<number> {
    let added = 0;
    for (const photoId of photoIds) if (await enqueueOnce(this.queue, JOBS.processPhoto, { photoId, httpRequestId }, processPhotoJobId(photoId))) added++;
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

/** The media queues as producers see them: video indexing and clip cutting. */
export class MediaQueues {
  readonly videos: Queue<IndexVideoJob>;
  readonly clips: Queue<CutClipsJob>;

  constructor(redisUrl: string) {
    const connection = connectRedis(redisUrl);
    this.videos = new Queue(QUEUES.videos, { connection });
    this.clips = new Queue(QUEUES.clips, { connection });
  }

  indexVideo(videoId: string, httpRequestId?: string): Promise<boolean> {
    return enqueueOnce(this.videos as Queue, JOBS.indexVideo, { videoId, httpRequestId }, indexVideoJobId(videoId), { ...DEFAULT_JOB_OPTIONS, attempts: 3 });
  }

  cutClips(eventId: number, requestId: string, generation: number, httpRequestId?: string): Promise<boolean> {
    return enqueueOnce(this.clips as Queue, JOBS.cutClips, { eventId, requestId, generation, httpRequestId }, cutClipsJobId(eventId, requestId, generation), { ...DEFAULT_JOB_OPTIONS, attempts: 3 });
  }

  async close(): Promise<void> {
    const connection = await this.videos.client;
    await Promise.all([this.videos.close(), this.clips.close()]);
    connection.disconnect();
  }
}
