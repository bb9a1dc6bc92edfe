import { Worker } from 'bullmq';
import { connectRedis } from '../redis';
import { startRedis } from '../test-support/redis-server';
import { JobQueues } from './job-queues';
import { JOBS } from './registry';

describe('JobQueues', () => {
  let redis: { url: string; stop: () => void };
  let jobs: JobQueues;

  beforeAll(async () => {
    redis = await startRedis();
    jobs = new JobQueues(redis.url);
  });
  afterAll(async () => {
    await jobs.close();
    redis.stop();
  });

  it('adds a job under its derived id with the registry options, once while it waits', async () => {
    const first = await jobs.enqueue('photos', { photoId: 'p1', httpRequestId: 'r1' });
    expect(first?.id).toBe('photo-p1');
    expect(first?.name).toBe('process-photo');
    expect(first?.opts).toMatchObject({ attempts: 5, backoff: { type: 'exponential', delay: 2000 } });
    expect(await jobs.enqueue('photos', { photoId: 'p1', httpRequestId: 'r2' })).toBeUndefined();
    expect((await jobs.queue('photos').getJob('photo-p1'))?.data).toEqual({ photoId: 'p1', httpRequestId: 'r1' });
  });

  it('replaces a finished job with a fresh one', async () => {
    await jobs.enqueue('videos', { videoId: 'v1' });
    const connection = connectRedis(redis.url);
    const worker = new Worker(JOBS.videos.queue, async () => 'indexed', { connection });
    try {
      await new Promise((resolve) => worker.once('completed', resolve));
    } finally {
      await worker.close();
      connection.disconnect();
    }
    const again = await jobs.enqueue('videos', { videoId: 'v1', httpRequestId: 'again' });
    expect(again?.id).toBe('video-v1');
    expect(await again?.getState()).toBe('waiting');
    expect(again?.data.httpRequestId).toBe('again');
  });

  it('gives every selfie a job of its own', async () => {
    const a = await jobs.enqueue('selfies', { imageBase64: 'x' });
    const b = await jobs.enqueue('selfies', { imageBase64: 'x' });
    expect(a?.id).toBeDefined();
    expect(b?.id).not.toBe(a?.id);
  });

  it('keeps one schedule per repeating job, updated in place', async () => {
    await jobs.scheduleRepeatingJobs({ CLIP_RETENTION_SWEEP_SECONDS: 300 });
    await jobs.scheduleRepeatingJobs({ CLIP_RETENTION_SWEEP_SECONDS: 60 });
    const schedulers = await jobs.queue('clipRetention').getJobSchedulers();
    expect(schedulers).toHaveLength(1);
    expect(schedulers[0]).toMatchObject({ key: 'clip-retention-sweep', name: 'sweep-expired-clips', every: 60_000 });
  });
});
