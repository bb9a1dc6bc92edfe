import { apiKeyPrincipal, InMemoryEventsRepository, InMemoryPhotosRepository } from '@em/core/testing';
import { EventPhotoCountsService } from './event-photo-counts.service';

function setup() {
  const events = new InMemoryEventsRepository();
  for (const [id, orgId] of [
    [5, 1],
    [6, 1],
    [7, 2],
  ])
    events.add({ id, orgId });
  const photos = new InMemoryPhotosRepository(events);
  photos.add({ eventId: 5, status: 'processed', publishedAt: new Date() });
  photos.add({ eventId: 5, status: 'failed' });
  photos.add({ eventId: 5, status: 'queued' });
  photos.add({ eventId: 7, status: 'processed' });
  let countQueries = 0;
  const counting = {
    countsOfEvents: (ids: readonly number[]) => (countQueries++, photos.countsOfEvents(ids)),
  };
  return { service: new EventPhotoCountsService(events, counting), queries: () => countQueries };
}

describe('EventPhotoCountsService', () => {
  it("counts a page of events in one query; another organisation's event gets pipelineStatus' refusal", async () => {
    const { service, queries } = setup();
    const [five, six, seven, missing] = await service.countsOf(apiKeyPrincipal(1), [5, 6, 7, 99]);
    expect(five).toEqual({ total: 3, processed: 1, failed: 1, live: 1 });
    expect(six).toEqual({ total: 0, processed: 0, failed: 0, live: 0 });
    expect(seven).toMatchObject({ code: 'FORBIDDEN' });
    expect(missing).toMatchObject({ code: 'NOT_FOUND' });
    expect(queries()).toBe(1);
  });

  it('refuses a read-only key and a key limited to other events, as pipelineStatus does', async () => {
    const { service } = setup();
    const [readOnly] = await service.countsOf({ ...apiKeyPrincipal(1), readOnly: true }, [5]);
    expect(readOnly).toMatchObject({ code: 'FORBIDDEN', message: 'This API key is read-only' });
    const [scopedOut, scopedIn] = await service.countsOf({ ...apiKeyPrincipal(1), eventIds: [6] }, [5, 6]);
    expect(scopedOut).toMatchObject({ code: 'FORBIDDEN' });
    expect(scopedIn).toEqual({ total: 0, processed: 0, failed: 0, live: 0 });
  });
});
