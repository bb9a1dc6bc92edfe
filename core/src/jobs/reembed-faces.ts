import { FACE_DESCRIPTOR_VERSION } from '../faces/embedding';
import type { PhotosRepository } from '../repositories/photos.repository';
import type { VideosRepository } from '../repositories/videos.repository';
import type { JobProducer } from './job-queues';

export interface ReembedRepositories {
  photos: Pick<PhotosRepository, 'eventsWithFacesOlderThan' | 'withFacesOlderThan' | 'markForReprocessing'>;
  videos: Pick<VideosRepository, 'eventsWithFacesOlderThan' | 'withFacesOlderThan' | 'markForReindexing'>;
}

export interface ReembedQueued {
  events: number;
  photos: number;
  videos: number;
}

/**
 * Queues the photos and videos with faces of a descriptor version older than the current one to be
 * processed again (photos: previews, BIBs and faces; videos: their face index), so their faces are
 * described at the current version; of one event, or of every event not being deleted. Until then
 * the face index matches them with the selfie's descriptor of their own family (SelfieDescriptors).
 *
 * Idempotent and safe to repeat at any time (the ml-worker runs it at every start): what is found
 * old is read from the faces themselves, a photo's job id is derived from the photo, and a job
 * still waiting or running is left alone (JobQueues.enqueue). A crash between marking and queueing
 * leaves the faces old, so the next run queues the photo again. Photos stay published meanwhile.
 */
export async function queueReembedding(
  repos: ReembedRepositories,
  jobs: JobProducer,
  eventId?: number,
  version = FACE_DESCRIPTOR_VERSION,
): Promise<ReembedQueued> {
  const events =
    eventId !== undefined
      ? [eventId]
      : [
          ...new Set([
            ...(await repos.photos.eventsWithFacesOlderThan(version)),
            ...(await repos.videos.eventsWithFacesOlderThan(version)),
          ]),
        ];
  const queued: ReembedQueued = { events: 0, photos: 0, videos: 0 };
  for (const event of events) {
    const photos = await repos.photos.withFacesOlderThan(event, version);
    const videos = await repos.videos.withFacesOlderThan(event, version);
    if (photos.length || videos.length) queued.events++;
    for (const photoId of photos) {
      await repos.photos.markForReprocessing(photoId);
      if (await jobs.enqueue('photos', { photoId })) queued.photos++;
    }
    for (const videoId of videos) {
      await repos.videos.markForReindexing(videoId);
      if (await jobs.enqueue('videos', { videoId })) queued.videos++;
    }
  }
  return queued;
}
