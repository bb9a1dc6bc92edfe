import {
  apiKeyPrincipal,
  InMemoryEventsRepository,
  InMemoryObjectStore,
  InMemoryPhotosRepository,
} from '@em/core/testing';
import { PhotosService } from './photos.service';

const ids = [
  '00000000-0000-4000-8000-000000000001',
  '00000000-0000-4000-8000-000000000002',
  '00000000-0000-4000-8000-000000000003',
  '00000000-0000-4000-8000-000000000004',
];
const at = (s: number) => new Date(Date.UTC(2026, 5, 1, 9, 0, s));
const published = at(0);

function setup() {
  const events = new InMemoryEventsRepository();
  const event = events.add({ id: 5, orgId: 1 });
  events.add({ id: 6, orgId: 2 });
  const photos = new InMemoryPhotosRepository(events);
  const service = new PhotosService(events, photos, new InMemoryObjectStore().asStore);
  return { events, event, photos, service };
}

describe('PhotosService', () => {
  it('shows only published photos, in gallery order (capture time, untimed last, id as tie-break)', async () => {
    const { photos, service } = setup();
    photos.add({ id: ids[3], eventId: 5, capturedAt: null, publishedAt: published });
    photos.add({ id: ids[2], eventId: 5, capturedAt: at(10), publishedAt: published });
    photos.add({ id: ids[1], eventId: 5, capturedAt: at(5), publishedAt: published });
    photos.add({ id: ids[0], eventId: 5, capturedAt: at(10), publishedAt: published });
    photos.add({ eventId: 5, capturedAt: at(1), publishedAt: null, status: 'processed' });
    const page = await service.gallery(apiKeyPrincipal(1), 1, 5);
    expect(page.items.map((p) => p.id)).toEqual([ids[1], ids[0], ids[2], ids[3]]);
    expect(page.pageInfo).toMatchObject({ total: 4, currentPage: 1, totalPages: 1 });
    expect(page.items[0]).toMatchObject({
      originalUrl: null,
      largeUrl: 'https://media.test/large.jpg',
      meta: { photoTimestamp: at(5).getTime() / 1000 },
    });
  });

  it('answers a page past the end with no items and the real total', async () => {
    const { photos, service } = setup();
    for (let i = 0; i < 3; i++) photos.add({ eventId: 5, capturedAt: at(i), publishedAt: published });
    const page = await service.gallery(apiKeyPrincipal(1), 1, 5, 3, 2);
    expect(page.items).toEqual([]);
    expect(page.pageInfo).toMatchObject({ total: 3, currentPage: 3, totalPages: 2, hasNextPage: false });
  });

  it('refuses an event of another organisation (403) and an unknown event (404)', async () => {
    const { service } = setup();
    await expect(service.gallery(apiKeyPrincipal(1), 1, 6)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(service.gallery(apiKeyPrincipal(1), 1, 99)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.gallery(apiKeyPrincipal(2), 1, 5)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('details: a published photo of the event; unpublished, of another event or not a UUID is 404', async () => {
    const { photos, service } = setup();
    photos.add({ id: ids[0], eventId: 5, publishedAt: published });
    photos.add({ id: ids[1], eventId: 5, publishedAt: null });
    photos.add({ id: ids[2], eventId: 6, publishedAt: published });
    expect((await service.details(apiKeyPrincipal(1), 1, 5, ids[0].toUpperCase())).id).toBe(ids[0]);
    for (const id of [ids[1], ids[2], 'not-a-uuid'])
      await expect(service.details(apiKeyPrincipal(1), 1, 5, id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('byIds (federation): in the order asked, null for unpublished photos and photos of organisations the caller may not read', async () => {
    const { photos, service } = setup();
    photos.add({ id: ids[0], eventId: 5, publishedAt: published });
    photos.add({ id: ids[1], eventId: 6, publishedAt: published });
    photos.add({ id: ids[2], eventId: 5, publishedAt: null });
    const found = await service.byIds(apiKeyPrincipal(1), [ids[2], ids[1], 'junk', ids[0]]);
    expect(found.map((p) => p?.id ?? null)).toEqual([null, null, null, ids[0]]);
  });
});
