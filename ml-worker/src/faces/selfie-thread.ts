import { connectRedis, createLogger, Logger } from '@em/core';
import { SelfieImages } from '@em/core/media';
import type { Worker as QueueWorker } from 'bullmq';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { JobHandler, startWorker } from '../workers';
import { embedSelfie, TimedSelfieFace } from './embed-selfie';
import { FaceAnalyzer } from './face-analyzer';
import { warmUpSelfies } from './warm-up';

/** What a selfie thread answers: `{ ready }` once its models are warm, then one reply per selfie. */
export interface SelfieReply {
  id: number;
  descriptor?: number[] | null;
  boxDescriptor?: number[] | null;
  facesFound?: number;
  /** Time in the thread's model, queueing behind another selfie included. */
  modelMs?: number;
  error?: string;
}

interface Pending {
  resolve: (face: TimedSelfieFace) => void;
  reject: (err: Error) => void;
}

interface SelfieThread {
  worker: Worker;
  pending: Map<number, Pending>;
}

/** What a selfie thread is started with: with `redisUrl`, it serves the selfie queue itself. */
export interface SelfieThreadData {
  redisUrl?: string;
}

/**
 * One thread's worker of the selfie queue. It holds one job at a time: the thread embeds one selfie at a time, so a
 * second job it held would wait behind the first while another thread stood idle.
 */
export function serveSelfieQueue(
  run: JobHandler<'selfies'>['run'],
  connection: ReturnType<typeof connectRedis>,
  logger: Logger,
): QueueWorker {
  return startWorker('selfies', { run }, connection, logger, 1);
}

/**
 * Selfie embedding on `size` worker threads, each with its own copy of the face models: tfjs-wasm
 * runs one call at a time per thread, so in the main thread a selfie waited for the photo or video
 * frame being analysed (hundreds of ms), and on one thread concurrent selfies wait for each other.
 * Started with `queue`, each thread takes selfie jobs from Redis itself: the main thread, busy for
 * seconds at a time with a photo's models during an ingest, neither picks up the job nor relays the
 * reply (measured: 0.7-2.9 s of a search's time in the queue and the relay while photos were
 * processed). embedSelfie() hands a selfie to the thread with the fewest in hand. A thread that
 * cannot start or dies leaves the pool; `onEmpty` tells when none is left (selfies then go to the
 * main thread's analyzer, ahead of queued photo work).
 */
export class SelfieThreads {
  private readonly threads: SelfieThread[] = [];
  private nextId = 1;

  constructor(
    private readonly fallback: Pick<FaceAnalyzer, 'embedSelfie'>,
    private readonly logger: Pick<Logger, 'warn' | 'error'>,
    private readonly size: number,
    /** Starts one thread (tests hand in a stand-in for the models). */
    private readonly spawn: () => Worker = () => new Worker(__filename),
    /** Called once when the last thread is lost. */
    private readonly onEmpty: () => void = () => undefined,
  ) {}

  /** Threads that serve the selfie queue themselves (Redis at `redisUrl`). */
  static servingQueue(
    fallback: Pick<FaceAnalyzer, 'embedSelfie'>,
    logger: Pick<Logger, 'warn' | 'error'>,
    size: number,
    data: SelfieThreadData,
    onEmpty: () => void,
  ): SelfieThreads {
    return new SelfieThreads(fallback, logger, size, () => new Worker(__filename, { workerData: data }), onEmpty);
  }

  /** Starts the threads and waits for their models; resolves how many started (0: selfies use the fallback). */
  async start(): Promise<number> {
    const started = await Promise.all(Array.from({ length: this.size }, () => this.startOne()));
    for (const thread of started) if (thread) this.threads.push(thread);
    return this.threads.length;
  }

  /** Threads serving selfies now. */
  get running(): number {
    return this.threads.length;
  }

  embedSelfie(image: Buffer, opts: { boxDescriptor?: boolean } = {}): Promise<TimedSelfieFace> {
    if (!this.threads.length) return this.fallback.embedSelfie(image, opts);
    const thread = this.threads.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = this.nextId++;
    return new Promise<TimedSelfieFace>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage({ id, image, boxDescriptor: opts.boxDescriptor !== false });
    });
  }

  /** Lets each thread finish its selfie jobs and close its queue worker (at most 5 s), then ends it. */
  async close(): Promise<void> {
    const threads = this.threads.splice(0);
    await Promise.all(
      threads.map(async (t) => {
        await Promise.race([
          new Promise((r) => (t.worker.once('message', r), t.worker.postMessage({ close: true }))),
          new Promise((r) => setTimeout(r, 5000)),
        ]);
        await t.worker.terminate();
      }),
    );
  }

  private async startOne(): Promise<SelfieThread | null> {
    let worker: Worker;
    try {
      worker = this.spawn();
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'a selfie thread failed to start');
      return null;
    }
    const ready = await new Promise<boolean>((resolve) => {
      worker.once('message', (m: { ready?: boolean }) => resolve(m.ready === true));
      worker.once('error', (err) => {
        this.logger.warn({ err: err.message }, 'a selfie thread failed to start');
        resolve(false);
      });
      worker.once('exit', () => resolve(false));
    });
    if (!ready) {
      await worker.terminate().catch(() => undefined);
      return null;
    }
    const thread: SelfieThread = { worker, pending: new Map() };
    worker.on('message', (reply: SelfieReply) => this.settle(thread, reply));
    worker.on('error', (err) => this.lost(thread, `selfie thread failed: ${err.message}`));
    worker.on('exit', (code) => this.lost(thread, `selfie thread exited (${code})`));
    return thread;
  }

  private settle(thread: SelfieThread, reply: SelfieReply): void {
    const waiting = thread.pending.get(reply.id);
    if (!waiting) return;
    thread.pending.delete(reply.id);
    if (reply.error !== undefined) waiting.reject(new Error(reply.error));
    else
      waiting.resolve({
        descriptor: reply.descriptor ? Float32Array.from(reply.descriptor) : null,
        boxDescriptor: reply.boxDescriptor ? Float32Array.from(reply.boxDescriptor) : null,
        facesFound: reply.facesFound ?? 0,
        modelMs: reply.modelMs,
      });
  }

  private lost(thread: SelfieThread, reason: string): void {
    const at = this.threads.indexOf(thread);
    if (at < 0) return;
    this.threads.splice(at, 1);
    this.logger.error(
      { reason, left: this.threads.length },
      this.threads.length
        ? 'selfie thread lost; the others take its selfies'
        : 'selfie thread lost; selfies are embedded on the main thread',
    );
    for (const waiting of thread.pending.values()) waiting.reject(new Error(reason));
    thread.pending.clear();
    if (!this.threads.length) this.onEmpty();
  }
}

// The thread itself: its own analyzer (warmed up before it says it is ready), one selfie at a time;
// with a Redis URL, its own worker of the selfie queue.
if (!isMainThread && parentPort) {
  const port = parentPort;
  const data = (workerData ?? {}) as SelfieThreadData;
  const faces = new FaceAnalyzer();
  let queue: QueueWorker | null = null;
  (async () => {
    await faces.load();
    await warmUpSelfies(faces);
    if (data.redisUrl) {
      const images = new SelfieImages(connectRedis(data.redisUrl));
      queue = serveSelfieQueue(
        (job) => embedSelfie(faces, job, images),
        connectRedis(data.redisUrl),
        createLogger('ml-worker'),
      );
      await queue.waitUntilReady();
    }
  })().then(
    () => {
      port.on(
        'message',
        ({
          id,
          image,
          close,
          boxDescriptor,
        }: {
          id: number;
          image: Uint8Array;
          close?: boolean;
          boxDescriptor?: boolean;
        }) => {
          if (close) {
            void (queue?.close() ?? Promise.resolve()).finally(() => port.postMessage({ closed: true }));
            return;
          }
          const started = performance.now();
          faces.embedSelfie(Buffer.from(image.buffer, image.byteOffset, image.byteLength), { boxDescriptor }).then(
            (found) =>
              port.postMessage({
                id,
                descriptor: found.descriptor ? Array.from(found.descriptor) : null,
                boxDescriptor: found.boxDescriptor ? Array.from(found.boxDescriptor) : null,
                facesFound: found.facesFound,
                modelMs: Math.round(performance.now() - started),
              } satisfies SelfieReply),
            (err: Error) => port.postMessage({ id, error: err.message } satisfies SelfieReply),
          );
        },
      );
      port.postMessage({ ready: true });
    },
    (err: Error) => {
      throw err;
    },
  );
}
