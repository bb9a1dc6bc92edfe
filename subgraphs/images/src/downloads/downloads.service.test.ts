import {
  apiKeyPrincipal,
  InMemoryEventsRepository,
  InMemoryFaceSearchesRepository,
  InMemoryObjectStore,
  InMemoryPhotosRepository,
} from '@em/core/testing';
import { DownloadsService, MAX_IMAGE_IDS } from './downloads.service';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const REQUEST_ID = '0b7e1c52-4a36-4d0e-9b59-3f1f4b8a2d11';

function setup() {
  const events = new InMemoryEventsRepository();
  events.add({ id: 5, orgId: 1 });
  events.add({ id: 6, orgId: 1 });
  const photos = new InMemoryPhotosRepository(events);
  const searches = new InMemoryFaceSearchesRepository();
  const store = new InMemoryObjectStore();
  const service = new DownloadsService(events, photos, searches, store.asStore);
  /** A published photo whose original is in the store (unless `stored` is false). */
  const photo = (
    n: number,
    opts: { eventId?: number; stored?: boolean; published?: boolean; bibs?: string[]; capturedAt?: Date } = {},
  ) => {
    const p = photos.add({
      id: uuid(n),
      eventId: opts.eventId ?? 5,
      originalKey: `originals/${n}.jpg`,
      originalFileName: `IMG_${n}.jpg`,
      publishedAt: opts.published === false ? null : new Date(),
      bibs: opts.bibs,
      capturedAt: opts.capturedAt,
    });
    if (opts.stored !== false) void store.put(p.originalKey, Buffer.from('jpeg'), 'image/jpeg');
    return p;
  };
  return { photos, searches, store, service, photo };
}

const download = (
  s: ReturnType<typeof setup>,
  method: unknown,
  identifier: unknown,
  page?: number,
  pageSize?: number,
) => s.service.originals(apiKeyPrincipal(1), 1, 5, method, identifier, page, pageSize);

describe('DownloadsService', () => {
  it('signs links for the published photos of a BIB, under their file names, in gallery order', async () => {
    const s = setup();
    s.photo(1, { bibs: ['1234'], capturedAt: new Date(2000) });
    s.photo(2, { bibs: ['1234'], capturedAt: new Date(1000) });
    s.photo(3, { bibs: ['1234'], published: false });
    s.photo(4, { bibs: ['999'] });
    const result = await download(s, 'bib', ' 1234 ');
    expect(result.presignedUrls.map((u) => [u.imageId, u.fileName])).toEqual([
      [uuid(2), 'IMG_2.jpg'],
      [uuid(1), 'IMG_1.jpg'],
    ]);
    expect(result.presignedUrls[0].url).toContain('originals/2.jpg');
    expect(result).toMatchObject({ totalImages: 2, successfulCount: 2, failedCount: 0, identifier: ' 1234 ' });
  });

  it('a BIB with no published photo is 404; a missing original is a failed url, not a link', async () => {
    const s = setup();
    await expect(download(s, 'bib', '77')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    s.photo(1, { bibs: ['77'], stored: false });
    const result = await download(s, 'bib', '77');
    expect(result).toMatchObject({
      successfulCount: 0,
      failedUrls: [{ imageId: uuid(1), error: 'The original is missing from storage', path: 'originals/1.jpg' }],
    });
  });

  it('image_id: 400 when that image cannot be downloaded (not a UUID, unpublished, another event)', async () => {
    const s = setup();
    s.photo(1);
    s.photo(2, { published: false });
    s.photo(3, { eventId: 6 });
    expect((await download(s, 'image_id', uuid(1).toUpperCase())).successfulCount).toBe(1);
    for (const id of ['nope', uuid(2), uuid(3)])
      await expect(download(s, 'image_id', id)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('image_ids: 400 only when no id of the whole list can be downloaded; a page of failures or past the end is a page', async () => {
    const s = setup();
    s.photo(1);
    const list = ['junk', uuid(99), uuid(1)];
    const first = await download(s, 'image_ids', list, 1, 2);
    expect(first).toMatchObject({ totalImages: 3, successfulCount: 0, failedCount: 2 });
    const pastEnd = await download(s, 'image_ids', list, 5, 2);
    expect(pastEnd).toMatchObject({ totalImages: 3, successfulCount: 0, failedCount: 0, presignedUrls: [] });
    await expect(download(s, 'image_ids', ['junk', uuid(99)])).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('image_ids: duplicates count once; more than the maximum or a non-list is 400', async () => {
    const s = setup();
    s.photo(1);
    expect((await download(s, 'image_ids', [uuid(1), uuid(1).toUpperCase(), ` ${uuid(1)}`])).totalImages).toBe(1);
    await expect(
      download(
        s,
        'image_ids',
        Array.from({ length: MAX_IMAGE_IDS + 1 }, (_, i) => uuid(i + 1)),
      ),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(download(s, 'image_ids', uuid(1))).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(download(s, 'image_ids', [])).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('selfie: the stored matches still published, paged; unknown request_id or another organisation is 404; not a UUID is 400', async () => {
    const s = setup();
    s.photo(1);
    s.photo(2, { published: false });
    s.photo(3);
    await s.searches.insertIfAbsent({
      requestId: REQUEST_ID,
      orgId: 1,
      eventId: 5,
      apiKeyId: 1,
      confidenceThreshold: 62,
      facesFound: 1,
      embedding: null,
      matches: [
        { photoId: uuid(3), confidence: 90 },
        { photoId: uuid(2), confidence: 80 },
        { photoId: uuid(1), confidence: 70 },
      ],
    });
    const result = await download(s, 'selfie', REQUEST_ID, 1, 1);
    expect(result).toMatchObject({
      totalImages: 2,
      presignedUrls: [{ imageId: uuid(3) }],
      pageInfo: { totalPages: 2 },
    });
    await expect(download(s, 'selfie', '0b7e1c52-4a36-4d0e-9b59-000000000000')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(download(s, 'selfie', 'not-a-uuid')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(s.service.originals(apiKeyPrincipal(2), 2, 5, 'selfie', REQUEST_ID)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('an unknown method or a missing identifier is 400', async () => {
    const s = setup();
    await expect(download(s, 'name', 'x')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(download(s, 'bib', undefined)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(download(s, 'bib', 42)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
