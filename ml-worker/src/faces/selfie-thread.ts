import type { Logger } from '@em/core';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { TimedSelfieFace } from './embed-selfie';
import { FaceAnalyzer } from './face-analyzer';
import { warmUpSelfies } from './warm-up';

interface Reply {
  id: number;
  descriptor?: number[] | null;
  facesFound?: number;
  /** Time in the thread's model, queueing behind another selfie included. */
  modelMs?: number;
  error?: string;
}

/**
 * Selfie embedding on a worker thread with its own copy of the face models (+~150 MB): tfjs-wasm
 * runs one call at a time per thread, so in the main thread a selfie waited for the photo or video
 * frame being analysed (hundreds of ms); here it starts at once. When the thread cannot start or
 * dies, selfies go to the main thread's analyzer (ahead of queued photo work, as before).
 */
export class SelfieThread {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (face: TimedSelfieFace) => void; reject: (err: Error) => void }>();

  constructor(
    private readonly fallback: FaceAnalyzer,
    private readonly logger: Logger,
  ) {}

  /** Starts the thread and waits for its models (resolves false, and selfies use the fallback, when it cannot start). */
  async start(): Promise<boolean> {
    const worker = new Worker(__filename);
    const ready = await new Promise<boolean>((resolve) => {
      worker.once('message', (m: { ready?: boolean }) => resolve(m.ready === true));
      worker.once('error', (err) => {
        this.logger.warn({ err: err.message }, 'selfie thread failed to start; selfies are embedded on the main thread');
        resolve(false);
      });
    });
    if (!ready) {
      await worker.terminate().catch(() => undefined);
      return false;
    }
    worker.on('message', (reply: Reply) => this.settle(reply));
    worker.on('error', (err) => this.lost(`selfie thread failed: ${err.message}`));
    worker.on('exit', (code) => this.lost(`selfie thread exited (${code})`));
    this.worker = worker;
    return true;
  }

  embedSelfie(image: Buffer): Promise<TimedSelfieFace> {
    const worker = this.worker;
    if (!worker) return this.fallback.embedSelfie(image);
    const id = this.nextId++;
    return new Promise<TimedSelfieFace>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, image });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  private settle(reply: Reply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (reply.error !== undefined) waiting.reject(new Error(reply.error));
    else waiting.resolve({ descriptor: reply.descriptor ? Float32Array.from(reply.descriptor) : null, facesFound: reply.facesFound ?? 0, modelMs: reply.modelMs });
  }

  private lost(reason: string): void {
    if (!this.worker) return;
    this.worker = null;
    this.logger.error({ reason }, 'selfie thread lost; selfies are embedded on the main thread');
    for (const waiting of this.pending.values()) waiting.reject(new Error(reason));
    this.pending.clear();
  }
}

// The thread itself: its own analyzer (warmed up before it says it is ready), one selfie at a time.
if (!isMainThread && parentPort) {
  const port = parentPort;
  const faces = new FaceAnalyzer();
  (async () => {
    await faces.load();
    await warmUpSelfies(faces);
  })().then(
    () => {
      port.on('message', ({ id, image }: { id: number; image: Uint8Array }) => {
        const started = performance.now();
        faces.embedSelfie(Buffer.from(image.buffer, image.byteOffset, image.byteLength)).then(
          (found) => port.postMessage({ id, descriptor: found.descriptor ? Array.from(found.descriptor) : null, facesFound: found.facesFound, modelMs: Math.round(performance.now() - started) } satisfies Reply),
          (err: Error) => port.postMessage({ id, error: err.message } satisfies Reply),
        );
      });
      port.postMessage({ ready: true });
    },
    (err: Error) => {
      throw err;
    },
  );
}
