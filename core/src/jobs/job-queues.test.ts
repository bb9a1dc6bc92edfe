import { Worker } from 'bullmq';
import { connectRedis } from '../redis';
import { startRedis } from '../test-support/redis-server';
import { releaseFairShare } from './fair-share';
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

  it("takes a fair-share queue's jobs so that a caller's next waits behind every other caller's first", async () => {
    const clips = jobs.queue('clips');
    await clips.pause();
    const job = (caller: string, n: number) => ({ eventId: 9, requestId: `${caller}-${n}`, generation: 1, caller });
    for (let n = 1; n <= 3; n++) await jobs.enqueue('clips', job('visitor-a', n));
    await jobs.enqueue('clips', job('visitor-b', 1));
    // Asked again while it waits: the same job, not a second share.
    await jobs.enqueue('clips', job('visitor-a', 3));
    await jobs.enqueue('clips', job('visitor-a', 4));
    const order: string[] = [];
    const connection = connectRedis(redis.url);
    const worker = new Worker(
      JOBS.clips.queue,
      async (j) => {
        order.push(j.data.requestId);
        await releaseFairShare(jobs.redis, JOBS.clips.queue, j.data.caller, j.id!);
      },
      { connection, concurrency: 1 },
    );
    try {
      await clips.resume();
      await new Promise<void>((resolve) => worker.on('completed', () => order.length === 5 && resolve()));
    } finally {
      await worker.close();
      connection.disconnect();
    }
    expect(order).toEqual(['visitor-a-1', 'visitor-b-1', 'visitor-a-2', 'visitor-a-3', 'visitor-a-4']);
    // Every job released: the caller's next job goes in arrival order again.
    expect((await jobs.enqueue('clips', job('visitor-a', 5)))?.opts.priority ?? 0).toBe(0);
  });
});
