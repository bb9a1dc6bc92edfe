import { EmbedSelfieJob, EmbedSelfieResult } from '@em/core/jobs';
import { SelfieFace } from './face-analyzer';

/** The reply to a face search waiting on its selfie: the largest face's descriptor, or none. */
export async function embedSelfie(faces: { embedSelfie(image: Buffer): Promise<SelfieFace> }, job: EmbedSelfieJob): Promise<EmbedSelfieResult> {
  const found = await faces.embedSelfie(Buffer.from(job.imageBase64, 'base64'));
  return { descriptor: found.descriptor ? Array.from(found.descriptor) : null, facesFound: found.facesFound };
}
