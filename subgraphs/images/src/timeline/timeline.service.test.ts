import {
  apiKeyPrincipal,
  InMemoryEventsRepository,
  InMemoryObjectStore,
  InMemoryPhotosRepository,
} from '@em/core/testing';
import { TimelineService } from './timeline.service';

const t = (iso: string) => new Date(iso);
const epoch = (iso: string) => Date.parse(iso) / 1000;

function setup() {
  const events = new InMemoryEventsRepository();
  events.add({ id: 5, orgId: 1, timelineSearch: true });
  events.add({ id: 6, orgId: 1, timelineSearch: false });
  const photos = new InMemoryPhotosRepository(events);
  const published = t('2026-06-01T00:00:00Z');
  photos.add({ id: 'a', eventId: 5, capturedAt: t('2026-06-01T09:10:00Z'), publishedAt: published });
  photos.add({ id: 'b', eventId: 5, capturedAt: t('2026-06-01T09:50:00Z'), publishedAt: published });
  photos.add({ id: 'c', eventId: 5, capturedAt: t('2026-06-01T11:00:00Z'), publishedAt: published });
  photos.add({ id: 'd', eventId: 5, capturedAt: t('2026-06-02T08:00:00Z'), publishedAt: published });
  photos.add({ id: 'e', eventId: 5, capturedAt: t('2026-06-01T09:20:00Z'), publishedAt: null });
  photos.add({ id: 'f', eventId: 5, capturedAt: null, publishedAt: published });
  return new TimelineService(events, photos, new InMemoryObjectStore().asStore);
}

describe('TimelineService', () => {
  it('counts timed, published photos per UTC day and hour', async () => {
    expect(await setup().days(apiKeyPrincipal(1), 1, 5)).toEqual([
      {
        date: '2026-06-01',
        total: 3,
        hours: [
          { hour: 9, count: 2 },
          { hour: 11, count: 1 },
        ],
      },
      { date: '2026-06-02', total: 1, hours: [{ hour: 8, count: 1 }] },
    ]);
  });

  it('lists published photos captured in [from, to), by capture time', async () => {
    const page = await setup().window(
      apiKeyPrincipal(1),
      1,
      5,
      epoch('2026-06-01T09:00:00Z'),
      epoch('2026-06-01T11:00:00Z'),
    );
    expect(page.items.map((p) => p.id)).toEqual(['a', 'b']);
    expect(page.pageInfo.total).toBe(2);
  });

  it('refuses a window whose end is not after its start (400), a missing or fractional bound (422), and an event without timeline search (403)', async () => {
    const service = setup();
    await expect(service.window(apiKeyPrincipal(1), 1, 5, 100, 100)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(service.window(apiKeyPrincipal(1), 1, 5, null, 100)).rejects.toMatchObject({ code: 'UNPROCESSABLE' });
    await expect(service.window(apiKeyPrincipal(1), 1, 5, 1.5, 100)).rejects.toMatchObject({ code: 'UNPROCESSABLE' });
    await expect(service.days(apiKeyPrincipal(1), 1, 6)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
