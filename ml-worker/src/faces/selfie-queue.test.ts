import { connectRedis, Logger } from '@em/core';
import { JobQueues } from '@em/core/jobs';
import { startRedis } from '@em/core/testing';
import type { Worker as QueueWorker } from 'bullmq';
import { serveSelfieQueue } from './selfie-thread';

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('selfie threads serving the queue (real Redis, BullMQ)', () => {
  let redis: { url: string; stop: () => void };
  let jobs: JobQueues;
  let threads: QueueWorker[] = [];
  const connections: Array<ReturnType<typeof connectRedis>> = [];

  beforeAll(async () => {
    redis = await startRedis();
    jobs = new JobQueues(redis.url);
  });
  afterEach(async () => {
    await Promise.all(threads.map((t) => t.close()));
    threads = [];
    for (const c of connections.splice(0)) c.disconnect();
  });
  afterAll(async () => {
    await jobs.close();
    redis.stop();
  });

  it('a selfie queued while one thread embeds goes to the idle thread at once, not behind the busy one', async () => {
    const started: number[] = [];
    threads = [0, 1].map((thread) => {
      // A thread embeds one selfie at a time (tfjs-wasm): a second job it took waits for the first.
      let busy: Promise<unknown> = Promise.resolve();
      const embed = async () => {
        started.push(thread);
        await sleep(500);
        return { descriptor: null, facesFound: 0 };
      };
      return serveSelfieQueue(
        () => {
          const turn = busy.then(embed);
          busy = turn;
          return turn;
        },
        connections[connections.push(connectRedis(redis.url)) - 1],
        quiet as unknown as Logger,
      );
    });
    await Promise.all(threads.map((t) => t.waitUntilReady()));
    await sleep(200); // both threads are waiting for work

    const until = async (n: number) => {
      const deadline = Date.now() + 5000;
      while (started.length < n && Date.now() < deadline) await sleep(10);
    };
    for (let round = 0; round < 6; round++) {
      started.length = 0;
      await jobs.enqueue('selfies', { imageKey: 'first' });
      await until(1);
      await jobs.enqueue('selfies', { imageKey: 'second' });
      await until(2);
      expect(started[1]).not.toBe(started[0]); // the idle thread took it, so it did not wait behind the first
      await sleep(700);
    }
  }, 30_000);
});
