import { Config } from '@em/core';
import { Orm, SqlPhotosRepository, SqlVideosRepository } from '@em/core/data';
import { jobIdOf, JobQueues } from '@em/core/jobs';
import { FACE_DESCRIPTOR_VERSION } from '@em/core/media';

/**
 * `reembed-faces`: the photos and videos of an event with faces of an older descriptor version
 * are processed again by the ml-worker (photos: previews, BIBs and faces; videos: their face
 * index), so their faces match at the current calibration. Until then the face index matches them
 * with their own, stricter one (maxDistanceFor). Photos stay published meanwhile.
 */
export async function reembedFaces(orm: Orm, cfg: Config, flags: Record<string, string>): Promise<void> {
  const eventId = Number(flags.event);
  if (!Number.isSafeInteger(eventId) || eventId < 1) throw new Error('--event must be a positive integer');
  const photoRows = new SqlPhotosRepository(orm);
  const videoRows = new SqlVideosRepository(orm);
  const photos = await photoRows.withFacesOlderThan(eventId, FACE_DESCRIPTOR_VERSION);
  const videos = await videoRows.withFacesOlderThan(eventId, FACE_DESCRIPTOR_VERSION);
  const jobs = new JobQueues(cfg.REDIS_URL);
  let queued = 0;
  try {
    for (const id of photos) {
      // The finished job of the photo's first processing keeps its id (24 h) and would block the new one.
      if (!(await removeFinished(jobs, 'photos', jobIdOf('photos', { photoId: id })!))) continue;
      await photoRows.markForReprocessing(id);
      await jobs.enqueue('photos', { photoId: id });
      queued++;
    }
    for (const id of videos) {
      if (!(await removeFinished(jobs, 'videos', jobIdOf('videos', { videoId: id })!))) continue;
      await videoRows.markForReindexing(id);
      await jobs.enqueue('videos', { videoId: id });
      queued++;
    }
  } finally {
    await jobs.close();
  }
  console.log(`${photos.length} photos and ${videos.length} videos with faces older than descriptor version ${FACE_DESCRIPTOR_VERSION}; ${queued} queued for the ml-worker`);
}

/** False when the job is still waiting or running (it will write the current version anyway). */
async function removeFinished(jobs: JobQueues, queue: 'photos' | 'videos', jobId: string): Promise<boolean> {
  const job = await jobs.queue(queue).getJob(jobId);
  if (!job) return true;
  const state = await job.getState();
  if (state !== 'completed' && state !== 'failed') return false;
  await job.remove();
  return true;
}
