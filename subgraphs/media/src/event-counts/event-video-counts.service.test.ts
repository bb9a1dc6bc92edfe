import { newId } from '@em/core';
import { apiKeyPrincipal, InMemoryEventsRepository, InMemoryVideosRepository } from '@em/core/testing';
import { EventVideoCountsService } from './event-video-counts.service';

describe('EventVideoCountsService', () => {
  it('counts a page of events in one query, refused as eventVideos is (a read-only key, another organisation)', async () => {
    const events = new InMemoryEventsRepository();
    events.add({ id: 5, orgId: 1 });
    events.add({ id: 6, orgId: 2 });
    const videos = new InMemoryVideosRepository(events);
    for (const status of ['indexed', 'failed', 'indexing'] as const) {
      const video = await videos.insert({
        id: newId(),
        eventId: 5,
        sourceKey: `v-${status}.mp4`,
        originalFileName: `${status}.mp4`,
        storageKey: `videos/5/${status}.mp4`,
      });
      video.status = status;
    }
    let queries = 0;
    const service = new EventVideoCountsService(events, {
      countsOfEvents: (ids) => (queries++, videos.countsOfEvents(ids)),
    });
    const [five, six] = await service.countsOf(apiKeyPrincipal(1), [5, 6]);
    expect(five).toEqual({ total: 3, indexed: 1, failed: 1 });
    expect(six).toMatchObject({ code: 'FORBIDDEN' });
    expect(queries).toBe(1);
    const [readOnly] = await service.countsOf({ ...apiKeyPrincipal(1), readOnly: true }, [5]);
    expect(readOnly).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/read-only/) });
  });
});
