import { Config } from '@em/core';
import { Orm, SqlPhotosRepository, SqlVideosRepository } from '@em/core/data';
import { JobQueues, queueReembedding } from '@em/core/jobs';
import { FACE_DESCRIPTOR_VERSION } from '@em/core/media';

/**
 * `reembed-faces`: the photos and videos of an event with faces of an older descriptor version
 * are processed again by the ml-worker, so their faces match at the current calibration
 * (queueReembedding; the ml-worker also does this for every event at each start). Photos stay
 * published meanwhile.
 */
export async function reembedFaces(orm: Orm, cfg: Config, flags: Record<string, string>): Promise<void> {
  const eventId = Number(flags.event);
  if (!Number.isSafeInteger(eventId) || eventId < 1) throw new Error('--event must be a positive integer');
  const photos = new SqlPhotosRepository(orm);
  const videos = new SqlVideosRepository(orm);
  const older = {
    photos: (await photos.withFacesOlderThan(eventId, FACE_DESCRIPTOR_VERSION)).length,
    videos: (await videos.withFacesOlderThan(eventId, FACE_DESCRIPTOR_VERSION)).length,
  };
  const jobs = new JobQueues(cfg.REDIS_URL);
  try {
    const queued = await queueReembedding({ photos, videos }, jobs, eventId);
    console.log(
      `${older.photos} photos and ${older.videos} videos with faces older than descriptor version ${FACE_DESCRIPTOR_VERSION}; ${queued.photos + queued.videos} queued for the ml-worker`,
    );
  } finally {
    await jobs.close();
  }
}
