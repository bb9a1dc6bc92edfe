import { Worker } from 'bullmq';
import sharp from 'sharp';
import { AppError } from '../errors';
import { JOBS } from '../jobs';
import { connectRedis } from '../redis';
import { startRedis } from '../test-support/redis-server';
import { SelfieEmbedder } from './selfie-embedder';
import { SelfieImages } from './selfie-images';

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
    const images = new SelfieImages(queueConnection);
    const received: Array<Buffer | null> = [];
    const worker = new Worker(
      JOBS.selfies.queue,
      async (job) => {
        // The image travels beside the job, binary, not in the job's JSON.
        expect(job.data.imageBase64).toBeUndefined();
        received.push(await images.read(job.data.imageKey));
        return { descriptor: null, boxDescriptor: null, facesFound: 0 };
      },
      {
        connection: workerConnection,
      },
    );
    try {
      await worker.waitUntilReady();
      await expect(embedder.embed(selfie)).resolves.toMatchObject({ descriptors: null, facesFound: 0 });
      expect(received).toHaveLength(1);
      expect(received[0]!.equals(selfie)).toBe(true);
      // Removed once the search has its answer (nothing waits for its expiry).
      await new Promise((r) => setTimeout(r, 100));
      expect(await queueConnection.keys('selfie-image:*')).toEqual([]);
    } finally {
      await worker.close();
      await queue.close();
      workerConnection.disconnect();
      queueConnection.disconnect();
    }
  }, 30_000);
});

describe('SelfieEmbedder when the selfie queue is longer than its wait', () => {
  let redis: { url: string; stop: () => void };
  let embedder: SelfieEmbedder;
  let selfie: Buffer;
  let connection: ReturnType<typeof connectRedis>;
  let queue: import('bullmq').Queue;
  let worker: Worker;
  let workerConnection: ReturnType<typeof connectRedis>;
  const MODEL_MS = 200;

  beforeAll(async () => {
    redis = await startRedis();
    embedder = new SelfieEmbedder(redis.url, { maxBytes: 1024 * 1024, timeoutSeconds: 2 });
    selfie = await embedder.prepare(
      await sharp({ create: { width: 64, height: 64, channels: 3, background: '#888' } })
        .jpeg()
        .toBuffer(),
    );
    connection = connectRedis(redis.url);
    const { Queue } = await import('bullmq');
    queue = new Queue(JOBS.selfies.queue, { connection });
    // One slow embedding thread: MODEL_MS per selfie, which it reports as the model's time.
    worker = new Worker(
      JOBS.selfies.queue,
      async () => {
        const startedAt = Date.now();
        await new Promise((r) => setTimeout(r, MODEL_MS));
        return {
          descriptor: null,
          boxDescriptor: null,
          facesFound: 0,
          timing: { startedAt, finishedAt: Date.now(), modelMs: MODEL_MS },
        };
      },
      { connection: (workerConnection = connectRedis(redis.url)) },
    );
    await worker.waitUntilReady();
  });
  afterAll(async () => {
    await worker.close();
    await queue.close();
    await embedder.close();
    workerConnection.disconnect();
    connection.disconnect();
    redis.stop();
  });

  it('answers UNAVAILABLE at once with the estimated wait as Retry-After, records nothing, and embeds once it drains', async () => {
    // A few selfies teach the embedder the time per selfie.
    for (let i = 0; i < 3; i++) await embedder.embed(selfie);
    // 30 selfies ahead of one thread at 200 ms: ~6 s, past the 2 s wait.
    await queue.pause();
    await queue.addBulk(
      Array.from({ length: 30 }, () => ({ name: JOBS.selfies.job, data: { imageKey: 'selfie-image:gone' } })),
    );
    const started = Date.now();
    const refused = await embedder.embed(selfie).then(
      () => null,
      (err: unknown) => err,
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    const retryAfter = (refused as AppError).details!.retryAfterSeconds as number;
    // (30 + 1) x 0.2 s = 6.2 s estimated, 1.6 s of it admitted (0.8 of the wait): retry in ~5 s.
    expect(retryAfter).toBeGreaterThanOrEqual(4);
    expect(retryAfter).toBeLessThanOrEqual(6);
    expect((refused as AppError).message).toMatch(/busy/i);
    // Nothing of the refused selfie was queued or stored.
    expect(await queue.count()).toBe(30);
    expect(await connection.keys('selfie-image:*')).toEqual([]);

    await queue.drain();
    await queue.resume();
    await expect(embedder.embed(selfie)).resolves.toMatchObject({ descriptors: null, facesFound: 0 });
  }, 30_000);

  it('a short queue is admitted: a worker that does not answer in time is still NOT_RECORDED (500)', async () => {
    await queue.pause();
    try {
      await expect(embedder.embed(selfie)).rejects.toMatchObject({ code: 'NOT_RECORDED', status: 500 });
    } finally {
      await queue.drain();
      await queue.resume();
    }
  }, 30_000);
});

describe('SelfieEmbedder.prepare', () => {
  let redis: { url: string; stop: () => void };
  let embedder: SelfieEmbedder;
  beforeAll(async () => {
    redis = await startRedis();
    embedder = new SelfieEmbedder(redis.url, { maxBytes: 8 * 1024 * 1024, timeoutSeconds: 1 });
  });
  afterAll(async () => {
    await embedder.close();
    redis.stop();
  });

  it('downscales a phone-sized photo to 1280 px on its long side, a JPEG', async () => {
    const phone = await sharp({ create: { width: 4032, height: 3024, channels: 3, background: '#468' } })
      .jpeg()
      .toBuffer();
    const meta = await sharp(await embedder.prepare(phone)).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 1280, height: 960 });
  });

  it('gives the worker the pixels of a 92-quality JPEG of the downscaled photo (its coding changes bytes only)', async () => {
    const noisy = Buffer.from(Array.from({ length: 1600 * 1200 * 3 }, (_, i) => (i * 7919) % 251));
    const photo = await sharp(noisy, { raw: { width: 1600, height: 1200, channels: 3 } })
      .jpeg({ quality: 90 })
      .toBuffer();
    const reference = await sharp(photo).resize(1280, 1280, { fit: 'inside' }).jpeg({ quality: 92 }).toBuffer();
    const [sent, expected] = await Promise.all(
      [await embedder.prepare(photo), reference].map((jpeg) => sharp(jpeg).raw().toBuffer()),
    );
    expect(sent.equals(expected)).toBe(true);
  });

  it('refuses a JPEG cut in the middle of its data (valid header) with BAD_REQUEST, not a 500', async () => {
    const noisy = Buffer.from(Array.from({ length: 256 * 256 * 3 }, (_, i) => (i * 7919) % 251));
    const whole = await sharp(noisy, { raw: { width: 256, height: 256, channels: 3 } })
      .jpeg()
      .toBuffer();
    const cut = whole.subarray(0, Math.floor(whole.length / 2));
    await expect(embedder.prepare(cut)).rejects.toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  });
});

describe('SelfieImages', () => {
  let redis: { url: string; stop: () => void };
  let connection: ReturnType<typeof connectRedis>;
  beforeAll(async () => {
    redis = await startRedis();
    connection = connectRedis(redis.url);
  });
  afterAll(() => {
    connection.disconnect();
    redis.stop();
  });

  it('keeps the bytes as they are until removed or expired, and reads no key of another kind', async () => {
    const images = new SelfieImages(connection);
    const bytes = Buffer.from([0xff, 0xd8, 0, 1, 2, 0xff, 0xd9]);
    const key = await images.put(bytes, 60_000);
    expect((await images.read(key))!.equals(bytes)).toBe(true);
    await images.remove(key);
    expect(await images.read(key)).toBeNull();
    const brief = await images.put(bytes, 50);
    await new Promise((r) => setTimeout(r, 150));
    expect(await images.read(brief)).toBeNull();
    await connection.set('other', 'x');
    await expect(images.read('other')).rejects.toThrow(/not a selfie image key/);
  });
});
