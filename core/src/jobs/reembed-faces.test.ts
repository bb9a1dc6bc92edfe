import { BOX_DESCRIPTOR_VERSION, FACE_DESCRIPTOR_VERSION } from '../faces/embedding';
import { InMemoryPhotosRepository } from '../repositories/fakes/photos.fake';
import { InMemoryVideosRepository } from '../repositories/fakes/videos.fake';
import { queueReembedding } from './reembed-faces';

/** A queue that, as JobQueues, leaves a job alone while it is waiting or running (one per photo id). */
function queue() {
  const pending = new Set<string>();
  const added: string[] = [];
  return {
    pending,
    added,
    enqueue: async (name: string, payload: any) => {
      const id = `${name}:${payload.photoId ?? payload.videoId}`;
      if (pending.has(id)) return undefined;
      pending.add(id);
      added.push(id);
      return { id };
    },
  };
}

describe('queueReembedding (the ml-worker at each start, and the reembed-faces command)', () => {
  function event() {
    const photos = new InMemoryPhotosRepository();
    const videos = new InMemoryVideosRepository();
    photos.add({ id: 'old', eventId: 1 });
    photos.add({ id: 'mixed', eventId: 1 });
    photos.add({ id: 'new', eventId: 1 });
    photos.add({ id: 'other-event-old', eventId: 2 });
    photos.add({ id: 'current-event', eventId: 3 });
    photos.addFace('old', Buffer.alloc(512), BOX_DESCRIPTOR_VERSION);
    photos.addFace('mixed', Buffer.alloc(512), 3);
    photos.addFace('mixed', Buffer.alloc(512), FACE_DESCRIPTOR_VERSION);
    photos.addFace('new', Buffer.alloc(512), FACE_DESCRIPTOR_VERSION);
    photos.addFace('other-event-old', Buffer.alloc(512), 1);
    photos.addFace('current-event', Buffer.alloc(512), FACE_DESCRIPTOR_VERSION);
    const oldVideo = videos.add({ eventId: 4 });
    const newVideo = videos.add({ eventId: 4 });
    void videos.addFaces(oldVideo.id, 4, [
      { timeSeconds: 1, embedding: Buffer.alloc(512), score: 1, descriptorVersion: 3, track: 1 },
    ]);
    void videos.addFaces(newVideo.id, 4, [
      { timeSeconds: 1, embedding: Buffer.alloc(512), score: 1, descriptorVersion: FACE_DESCRIPTOR_VERSION, track: 1 },
    ]);
    return { photos, videos, oldVideo };
  }

  it('queues, in every event, the photos with faces older than the current version, and nothing else', async () => {
    const repos = event();
    const jobs = queue();
    expect(await queueReembedding(repos, jobs)).toEqual({ events: 3, photos: 3, videos: 1 });
    expect(jobs.added.sort()).toEqual([
      'photos:mixed',
      'photos:old',
      'photos:other-event-old',
      `videos:${repos.oldVideo.id}`,
    ]);
  });

  it('is idempotent: run again (a restart) while the jobs wait, it queues nothing twice; once re-embedded, nothing at all', async () => {
    const repos = event();
    const jobs = queue();
    await queueReembedding(repos, jobs);
    expect(await queueReembedding(repos, jobs)).toEqual({ events: 3, photos: 0, videos: 0 });
    expect(jobs.added).toHaveLength(4);
    // The worker re-described them at the current version (process-photo replaces a photo's faces, index-video a video's).
    for (const f of repos.photos.faces) f.descriptorVersion = FACE_DESCRIPTOR_VERSION;
    for (const f of repos.videos.faces) f.descriptorVersion = FACE_DESCRIPTOR_VERSION;
    jobs.pending.clear();
    expect(await queueReembedding(repos, jobs)).toEqual({ events: 0, photos: 0, videos: 0 });
  });

  it('queues a photo again after a crash between marking it and queueing it (its faces are still old)', async () => {
    const repos = event();
    const failing = {
      enqueue: async () => {
        throw new Error('redis went away');
      },
    };
    await expect(queueReembedding(repos, failing)).rejects.toThrow('redis went away');
    const jobs = queue();
    expect((await queueReembedding(repos, jobs)).photos).toBe(3);
  });

  it('of one event only, when asked (the command)', async () => {
    const jobs = queue();
    expect(await queueReembedding(event(), jobs, 2)).toEqual({ events: 1, photos: 1, videos: 0 });
  });
});
