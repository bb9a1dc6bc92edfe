import { apiKeyPrincipal, InMemoryEventsRepository, InMemoryPhotosRepository } from '@em/core/testing';
import { BibSearchService } from './bib-search.service';

function setup() {
  const events = new InMemoryEventsRepository();
  events.add({ id: 5, orgId: 1, bibSearch: true });
  events.add({ id: 6, orgId: 1, bibSearch: false });
  const photos = new InMemoryPhotosRepository(events);
  return { photos, service: new BibSearchService(events, photos) };
}

describe('BibSearchService', () => {
  it('finds published photos with the BIB, case- and space-insensitive, in gallery order, paged', async () => {
    const { photos, service } = setup();
    photos.add({ id: 'late', eventId: 5, bibs: ['a12'], capturedAt: new Date(3000), publishedAt: new Date() });
    photos.add({ id: 'early', eventId: 5, bibs: ['A12'], capturedAt: new Date(1000), publishedAt: new Date() });
    photos.add({ id: 'hidden', eventId: 5, bibs: ['A12'], capturedAt: new Date(2000), publishedAt: null });
    photos.add({ id: 'other', eventId: 5, bibs: ['A13'], publishedAt: new Date() });
    const page = await service.search(apiKeyPrincipal(1), 1, 5, ' a12 ', 1, 1);
    expect(page.items).toEqual([{ id: 'early' }]);
    expect(page.pageInfo).toMatchObject({ total: 2, totalPages: 2, hasNextPage: true });
    expect((await service.search(apiKeyPrincipal(1), 1, 5, 'A12', 2, 1)).items).toEqual([{ id: 'late' }]);
  });

  it('a BIB nobody wore is an empty page; an event without BIB search is 403', async () => {
    const { service } = setup();
    expect(await service.search(apiKeyPrincipal(1), 1, 5, '404')).toMatchObject({
      items: [],
      pageInfo: { total: 0, currentPage: 0 },
    });
    await expect(service.search(apiKeyPrincipal(1), 1, 6, '1')).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
