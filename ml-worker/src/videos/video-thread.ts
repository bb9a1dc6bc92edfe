import type { Logger } from '@em/core';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { FaceAnalyzer } from '../faces/face-analyzer';
import { Sighting } from './video-faces';
import { FrameDecoding, indexPart, PartStats, VideoPart } from './video-parts';

type ToThread = { file: string; decode: FrameDecoding; part: VideoPart; trackBase: number };
type FromThread = { ready: true } | { sightings: Sighting[]; time: number } | { done: PartStats } | { error: string };

/**
 * A worker thread with its own face models (+~150 MB) that indexes one part of a video while the
 * main thread indexes another: tfjs-wasm runs one call at a time per thread, so this is how one
 * video uses a second core. Started for a video job and closed after it.
 */
export class VideoPartThread {
  private constructor(private readonly worker: Worker) {}

  /** A thread with its models loaded, or null (the video is then indexed in one part) when it cannot start. */
  static async start(logger: Logger): Promise<VideoPartThread | null> {
    const worker = new Worker(__filename);
    const ready = await new Promise<boolean>((resolve) => {
      worker.once('message', (m: FromThread) => resolve('ready' in m));
      worker.once('error', (err) => {
        logger.warn({ err: err.message }, 'video thread failed to start; the video is indexed on the main thread');
        resolve(false);
      });
    });
    if (ready) return new VideoPartThread(worker);
    await worker.terminate().catch(() => undefined);
    return null;
  }

  /** Indexes a part (one at a time); sightings are handed to `onSightings` in order, as they come. */
  indexPart(
    file: string,
    decode: FrameDecoding,
    part: VideoPart,
    trackBase: number,
    onSightings: (sightings: Sighting[], time: number) => Promise<void>,
  ): Promise<PartStats> {
    return new Promise((resolve, reject) => {
      let chain = Promise.resolve();
      let failed: Error | null = null;
      const fail = (err: Error) => {
        failed ??= err;
        cleanup();
        void this.worker.terminate();
        reject(err);
      };
      const onMessage = (m: FromThread) => {
        if ('sightings' in m)
          chain = chain.then(() => (failed ? undefined : onSightings(m.sightings, m.time))).catch(fail);
        else if ('done' in m) void chain.then(() => (cleanup(), failed ? undefined : resolve(m.done)));
        else if ('error' in m) fail(new Error(m.error));
      };
      const onError = (err: Error) => fail(err);
      const onExit = (code: number) => fail(new Error(`video thread exited (${code})`));
      const cleanup = () => {
        this.worker.off('message', onMessage);
        this.worker.off('error', onError);
        this.worker.off('exit', onExit);
      };
      this.worker.on('message', onMessage);
      this.worker.on('error', onError);
      this.worker.on('exit', onExit);
      this.worker.postMessage({ file, decode, part, trackBase } satisfies ToThread);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

// The thread itself: its own analyzer, one part at a time.
if (!isMainThread && parentPort) {
  const port = parentPort;
  const faces = new FaceAnalyzer();
  faces.load().then(
    () => {
      port.on('message', ({ file, decode, part, trackBase }: ToThread) => {
        const send = async (sightings: Sighting[], time: number) => {
          if (sightings.length) port.postMessage({ sightings, time } satisfies FromThread);
        };
        indexPart(faces, file, decode, part, trackBase, send).then(
          (done) => port.postMessage({ done } satisfies FromThread),
          (err: Error) => port.postMessage({ error: err.message } satisfies FromThread),
        );
      });
      port.postMessage({ ready: true } satisfies FromThread);
    },
    (err: Error) => {
      throw err;
    },
  );
}
