import { EmbedSelfieJob, EmbedSelfieResult } from '@em/core/jobs';
import { SelfieFace } from './face-options';

/** A selfie's face, and how long the model took (when the embedder measured it, e.g. on its thread). */
export type TimedSelfieFace = SelfieFace & { modelMs?: number };

/** The reply to a face search waiting on its selfie: the largest face's descriptor, or none, and when the work started and ended. */
export async function embedSelfie(
  faces: { embedSelfie(image: Buffer, opts?: { boxDescriptor?: boolean }): Promise<TimedSelfieFace> },
  job: EmbedSelfieJob,
): Promise<EmbedSelfieResult> {
  const startedAt = Date.now();
  const found = await faces.embedSelfie(Buffer.from(job.imageBase64, 'base64'), {
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
