import { AppError, connectRedis, Logger } from '@em/core';
import { fairSharesHeld, JobQueues, JOBS } from '@em/core/jobs';
import { startRedis } from '@em/core/testing';
import { Job, UnrecoverableError } from 'bullmq';
import { clientReason, failedForGood, startWorker } from './workers';

const jobAfter = (attemptsMade: number, attempts?: number) => ({ attemptsMade, opts: { attempts } }) as unknown as Job;

describe('final failure of a job', () => {
  it('is the last attempt, or an UnrecoverableError at any attempt', () => {
    expect(failedForGood(jobAfter(1, 5), new Error('boom'))).toBe(false);
    expect(failedForGood(jobAfter(5, 5), new Error('boom'))).toBe(true);
    expect(failedForGood(jobAfter(1, 5), new UnrecoverableError('not a photo'))).toBe(true);
    expect(failedForGood(jobAfter(1), new Error('boom'))).toBe(true);
  });

  it('tells the client our own reasons and nothing of internal errors', () => {
    expect(clientReason(new UnrecoverableError('The file is not an image'), 'fallback')).toBe(
      'The file is not an image',
    );
    expect(clientReason(new AppError('BAD_REQUEST', 'The video has no frames'), 'fallback')).toBe(
      'The video has no frames',
    );
    expect(clientReason(new Error('ECONNREFUSED 10.0.0.3:5432'), 'The photo could not be processed')).toBe(
      'The photo could not be processed',
    );
  });
});

describe("a fair-share queue's worker", () => {
  it("gives the caller's share back when a job completes or fails for good", async () => {
    const redis = await startRedis();
    const jobs = new JobQueues(redis.url);
    const connection = connectRedis(redis.url);
    const quiet = { info: () => undefined, warn: () => undefined, debug: () => undefined } as unknown as Logger;
    const worker = startWorker(
      'clips',
      {
        run: async ({ requestId }) => {
          if (requestId === 'broken') throw new UnrecoverableError('cannot cut');
          return 'completed';
        },
      },
      connection,
      quiet,
    );
    try {
      const finished = new Promise<void>((resolve) => {
        let n = 0;
        const one = () => ++n === 2 && resolve();
        worker.on('completed', one);
        worker.on('failed', one);
      });
      await jobs.enqueue('clips', { eventId: 1, requestId: 'fine', generation: 1, caller: 'visitor' });
      await jobs.enqueue('clips', { eventId: 1, requestId: 'broken', generation: 1, caller: 'visitor' });
      await finished;
      const held = () => fairSharesHeld(jobs.redis, JOBS.clips.queue, 'visitor');
      // The release runs beside the worker's own events: wait a little for it.
      for (let i = 0; i < 50 && (await held()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await held()).toBe(0);
    } finally {
      await worker.close();
      connection.disconnect();
      await jobs.close();
      redis.stop();
    }
  });
});
