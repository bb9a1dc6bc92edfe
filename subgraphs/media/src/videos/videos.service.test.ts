import {
  apiKeyPrincipal,
  InMemoryEventsRepository,
  InMemoryObjectStore,
  InMemoryVideosRepository,
  RecordingJobProducer,
  writeTestVideo,
} from '@em/core/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { VideosService } from './videos.service';

const dir = mkdtempSync(path.join(tmpdir(), 'videos-test-'));
const clip = path.join(dir, 'finish-line.mp4');
const junk = path.join(dir, 'junk.mp4');
beforeAll(() => {
  writeTestVideo(clip, 1);
  writeFileSync(junk, 'not a video');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function setup() {
  const events = new InMemoryEventsRepository();
  events.add({ id: 5, orgId: 1, videoSearch: true });
  const videos = new InMemoryVideosRepository(events);
  const store = new InMemoryObjectStore();
  const jobs = new RecordingJobProducer();
  return { videos, store, jobs, service: new VideosService(events, videos, store.asStore, jobs) };
}

describe('VideosService', () => {
  it('stores a readable video under the event, named by its file name, and queues its indexing', async () => {
    const { videos, store, jobs, service } = setup();
    const view = await service.add(apiKeyPrincipal(1), 1, 5, clip, 'Finish Line.MP4');
    expect(view).toMatchObject({ sourceKey: 'Finish Line', status: 'uploaded', indexProgress: 0 });
    const row = videos.rows.get(view.id)!;
    expect(row.storageKey).toBe(`videos/5/${view.id}.mp4`);
    expect(store.objects.has(row.storageKey)).toBe(true);
    expect(jobs.of('videos')).toEqual([{ videoId: view.id, httpRequestId: 'req-test' }]);
  });

  it('a second video with the same source key is 409; a file that is not a video is 400; nothing stored for either', async () => {
    const { store, jobs, service } = setup();
    await service.add(apiKeyPrincipal(1), 1, 5, clip, 'a.mp4', 'cam-1');
    await expect(service.add(apiKeyPrincipal(1), 1, 5, clip, 'b.mp4', ' cam-1 ')).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(service.add(apiKeyPrincipal(1), 1, 5, junk, 'junk.mp4')).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(store.objects.size).toBe(1);
    expect(jobs.queued).toHaveLength(1);
  });

  it('lists the event videos in upload order', async () => {
    const { videos, service } = setup();
    videos.add({ eventId: 5, sourceKey: 'first' });
    videos.add({ eventId: 5, sourceKey: 'second', status: 'indexed' });
    videos.add({ eventId: 6, sourceKey: 'elsewhere' });
    expect((await service.list(apiKeyPrincipal(1), 1, 5)).map((v) => [v.sourceKey, v.status])).toEqual([
      ['first', 'uploaded'],
      ['second', 'indexed'],
    ]);
  });
});
