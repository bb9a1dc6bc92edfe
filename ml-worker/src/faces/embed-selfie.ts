import { EmbedSelfieJob, EmbedSelfieResult } from '@em/core/jobs';
import type { SelfieImages } from '@em/core/media';
import { SelfieFace } from './face-options';

/** A selfie's face, and how long the model took (when the embedder measured it, e.g. on its thread). */
export type TimedSelfieFace = SelfieFace & { modelMs?: number };

/**
 * The reply to a face search waiting on its selfie: the largest face's descriptor, or none, and when the work
 * started and ended. The image is read from beside the job (`imageKey`), or from the job of an older producer.
 */
export async function embedSelfie(
  faces: { embedSelfie(image: Buffer, opts?: { boxDescriptor?: boolean }): Promise<TimedSelfieFace> },
  job: EmbedSelfieJob,
  images: Pick<SelfieImages, 'read'>,
): Promise<EmbedSelfieResult> {
  const startedAt = Date.now();
  const image = job.imageKey ? await images.read(job.imageKey) : Buffer.from(job.imageBase64 ?? '', 'base64');
  // Its search gave up on it (the image expires after the search's wait): nothing to answer.
  if (!image) throw new Error('the selfie image is gone: its search stopped waiting');
  const found = await faces.embedSelfie(image, {
    boxDescriptor: job.boxDescriptor !== false,
  });
  const finishedAt = Date.now();
  return {
    descriptor: found.descriptor ? Array.from(found.descriptor) : null,
    boxDescriptor: found.boxDescriptor ? Array.from(found.boxDescriptor) : null,
    facesFound: found.facesFound,
    timing: { startedAt, finishedAt, modelMs: found.modelMs ?? finishedAt - startedAt },
  };
}
