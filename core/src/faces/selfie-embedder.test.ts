import { Worker } from 'bullmq';
import sharp from 'sharp';
import { AppError } from '../errors';
import { JOBS } from '../jobs';
import { connectRedis } from '../redis';
import { startRedis } from '../test-support/redis-server';
import { SelfieEmbedder } from './selfie-embedder';

describe('SelfieEmbedder before a worker serves the selfie queue', () => {
  let redis: { url: string; stop: () => void };
  let embedder: SelfieEmbedder;
  let selfie: Buffer;

  beforeAll(async () => {
    redis = await startRedis();
    embedder = new SelfieEmbedder(redis.url, { maxBytes: 1024 * 1024, timeoutSeconds: 20 });
    selfie = await embedder.prepare(
      await sharp({ create: { width: 64, height: 64, channels: 3, background: '#888' } })
        .jpeg()
        .toBuffer(),
    );
  });
  afterAll(async () => {
    await embedder.close();
    redis.stop();
  });

  it('answers UNAVAILABLE with a retry time at once, and embeds once a worker serves the queue', async () => {
    const started = Date.now();
    const refused = await embedder.embed(selfie).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'UNAVAILABLE', status: 503, details: { retryAfterSeconds: 10 } });
    expect(Date.now() - started).toBeLessThan(5000);
    // Nothing was left queued for a worker that starts later.
    const { Queue } = await import('bullmq');
    const queueConnection = connectRedis(redis.url);
    const queue = new Queue(JOBS.selfies.queue, { connection: queueConnection });
    expect(await queue.count()).toBe(0);

    const workerConnection = connectRedis(redis.url);
    const worker = new Worker(
      JOBS.selfies.queue,
      async () => ({ descriptor: null, boxDescriptor: null, facesFound: 0 }),
      {
        connection: workerConnection,
      },
    );
    try {
      await worker.waitUntilReady();
      await expect(embedder.embed(selfie)).resolves.toMatchObject({ descriptors: null, facesFound: 0 });
    } finally {
      await worker.close();
      await queue.close();
      workerConnection.disconnect();
      queueConnection.disconnect();
    }
  }, 30_000);
});
