import { randomUUID } from 'node:crypto';
import { closeDb, expectError, expectSuccess, fixtures, postJson, sql, store } from './support/platform';

const t = (iso: string) => new Date(iso);

describe('original downloads (POST /original-photos)', () => {
  let orgId: number;
  let key: string;
  let eventId: number;
  let base: string;
  /** 0-2: bib 77, originals stored; 3: bib 77, original missing; 4: unpublished, bib 77; 5: bib 5, stored. */
  let ids: string[];
  const originals = new Map<string, Buffer>();

  beforeAll(async () => {
    ({ orgId, key } = await fixtures.organisation());
    eventId = await fixtures.event(orgId);
    base = `/${orgId}/event/${eventId}`;
    ids = await fixtures.photos(eventId, [
      { capturedAt: t('2026-05-17T09:00:00Z'), bibs: ['77'] },
      { capturedAt: t('2026-05-17T09:01:00Z'), bibs: ['77'] },
      { capturedAt: t('2026-05-17T09:02:00Z'), bibs: ['77'] },
      { capturedAt: t('2026-05-17T09:03:00Z'), bibs: ['77'] },
      { capturedAt: t('2026-05-17T09:04:00Z'), bibs: ['77'], published: false },
      { capturedAt: t('2026-05-17T09:05:00Z'), bibs: ['5'] },
    ]);
    for (const i of [0, 1, 2, 4, 5]) {
      const body = Buffer.from(`original bytes of ${ids[i]}`);
      originals.set(ids[i], body);
      await store.put(`originals/${eventId}/${ids[i]}.jpg`, body, 'image/jpeg');
    }
  });
  afterAll(closeDb);

  const fileNameOf = (id: string) => `IMG_${id.slice(0, 4)}.jpg`;

  it('method bib: links to the originals of the published photos, failures for originals missing from storage', async () => {
    const data = expectSuccess(await postJson(`${base}/original-photos`, key, { method: 'bib', identifier: '77' }));
    expect(data.identifier).toBe('77');
    expect(data.presigned_urls.map((u: any) => u.filename)).toEqual([ids[0], ids[1], ids[2]].map(fileNameOf));
    expect(data.failed_urls).toEqual([
      { image_id: ids[3], error: expect.any(String), path: `originals/${eventId}/${ids[3]}.jpg` },
    ]);
    expect(data).toMatchObject({ total_images: 4, successful_count: 3, failed_count: 1 });
    expect(data.pagination).toEqual({
      total: 4,
      currentPage: 1,
      totalPages: 1,
      hasNextPage: false,
      hasPreviousPage: false,
      page_size: 30,
    });
    for (const [i, link] of data.presigned_urls.entries()) {
      const url = new URL(link.url);
      expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toContain(`filename="${fileNameOf(ids[i])}"`);
      expect(Buffer.from(await res.arrayBuffer()).equals(originals.get(ids[i])!)).toBe(true);
    }
  });

  it('pages with a default of 30 and a maximum of 60', async () => {
    const second = expectSuccess(
      await postJson(`${base}/original-photos?page=2&page_size=2`, key, { method: 'bib', identifier: '77' }),
    );
    expect(second.presigned_urls.map((u: any) => u.filename)).toEqual([fileNameOf(ids[2])]);
    expect(second.failed_urls.map((f: any) => f.image_id)).toEqual([ids[3]]);
    expect(second.pagination).toMatchObject({
      total: 4,
      currentPage: 2,
      totalPages: 2,
      hasPreviousPage: true,
      hasNextPage: false,
      page_size: 2,
    });
    expect(second).toMatchObject({ total_images: 4, successful_count: 1, failed_count: 1 });
    const clamped = expectSuccess(
      await postJson(`${base}/original-photos?page_size=1000`, key, { method: 'bib', identifier: '77' }),
    );
    expect(clamped.pagination.page_size).toBe(60);
    expectError(await postJson(`${base}/original-photos?page=0`, key, { method: 'bib', identifier: '77' }), 400);
  });

  it('method bib: an unknown BIB is a 404', async () => {
    expectError(await postJson(`${base}/original-photos`, key, { method: 'bib', identifier: '4040' }), 404);
  });

  it('method selfie: the photos of a stored face search, in its order; unknown or foreign request_id 404', async () => {
    const requestId = randomUUID();
    const matches = [ids[5], ids[3], ids[0], ids[4]].map((photoId, i) => ({ photoId, confidence: 90 - i }));
    await sql(
      `insert into face_searches (request_id, organisation_id, event_id, matches) values ($1, $2, $3, $4::jsonb)`,
      [requestId, orgId, eventId, JSON.stringify(matches)],
    );
    const data = expectSuccess(
      await postJson(`${base}/original-photos`, key, { method: 'selfie', identifier: requestId }),
    );
    expect(data.identifier).toBe(requestId);
    // ids[4] is unpublished: not downloadable, not counted.
    expect(data.presigned_urls.map((u: any) => u.filename)).toEqual([ids[5], ids[0]].map(fileNameOf));
    expect(data.failed_urls.map((f: any) => f.image_id)).toEqual([ids[3]]);
    expect(data).toMatchObject({ total_images: 3, successful_count: 2, failed_count: 1 });

    expectError(await postJson(`${base}/original-photos`, key, { method: 'selfie', identifier: randomUUID() }), 404);
    const otherEvent = await fixtures.event(orgId);
    expectError(
      await postJson(`/${orgId}/event/${otherEvent}/original-photos`, key, { method: 'selfie', identifier: requestId }),
      404,
    );
    expectError(await postJson(`${base}/original-photos`, key, { method: 'selfie', identifier: 'not-a-uuid' }), 400);
  });

  it('method image_id: one link when the original exists; 400 otherwise', async () => {
    const data = expectSuccess(
      await postJson(`${base}/original-photos`, key, { method: 'image_id', identifier: ids[1] }),
    );
    expect(data).toMatchObject({
      identifier: ids[1],
      total_images: 1,
      successful_count: 1,
      failed_count: 0,
      failed_urls: [],
    });
    expect(data.presigned_urls).toEqual([
      { url: expect.stringContaining('X-Amz-Signature='), filename: fileNameOf(ids[1]), image_id: ids[1] },
    ]);
    for (const missing of [ids[3], ids[4], randomUUID(), 'nope']) {
      expectError(await postJson(`${base}/original-photos`, key, { method: 'image_id', identifier: missing }), 400);
    }
  });

  it('method image_ids: links for the good ones, failed_urls for the rest, identifier null', async () => {
    const unknown = randomUUID();
    const data = expectSuccess(
      await postJson(`${base}/original-photos`, key, {
        method: 'image_ids',
        identifier: [ids[0], unknown, 'garbage', ids[3], ids[5], ids[0]],
      }),
    );
    expect(data.identifier).toBeNull();
    expect(data.presigned_urls.map((u: any) => u.image_id)).toEqual([ids[0], ids[5]]);
    expect(data.failed_urls.map((f: any) => f.image_id)).toEqual([unknown, 'garbage', ids[3]]);
    expect(data.failed_urls[2].path).toBe(`originals/${eventId}/${ids[3]}.jpg`);
    expect(data).toMatchObject({ total_images: 5, successful_count: 2, failed_count: 3 });
  });

  it('method image_ids: every id invalid is a 400 with data null', async () => {
    expectError(
      await postJson(`${base}/original-photos`, key, { method: 'image_ids', identifier: [randomUUID(), 'x', ids[4]] }),
      400,
    );
  });

  it('method image_ids: the every-id-invalid rule is about the whole list, not the page; a page past the end is empty', async () => {
    const unknown = randomUUID();
    const list = [unknown, 'garbage', ids[3], ids[0]];
    const onlyFailures = expectSuccess(
      await postJson(`${base}/original-photos?page=1&page_size=2`, key, { method: 'image_ids', identifier: list }),
    );
    expect(onlyFailures.presigned_urls).toEqual([]);
    expect(onlyFailures.failed_urls.map((f: any) => f.image_id)).toEqual([unknown, 'garbage']);
    expect(onlyFailures).toMatchObject({ identifier: null, total_images: 4, successful_count: 0, failed_count: 2 });
    const second = expectSuccess(
      await postJson(`${base}/original-photos?page=2&page_size=2`, key, { method: 'image_ids', identifier: list }),
    );
    expect(second.presigned_urls.map((u: any) => u.image_id)).toEqual([ids[0]]);
    expect(second.failed_urls.map((f: any) => f.image_id)).toEqual([ids[3]]);

    const pastTheEnd = expectSuccess(
      await postJson(`${base}/original-photos?page=5&page_size=2`, key, { method: 'image_ids', identifier: list }),
    );
    expect(pastTheEnd).toMatchObject({
      presigned_urls: [],
      failed_urls: [],
      total_images: 4,
      successful_count: 0,
      failed_count: 0,
    });
    expect(pastTheEnd.pagination).toMatchObject({
      total: 4,
      currentPage: 5,
      totalPages: 2,
      hasNextPage: false,
      page_size: 2,
    });

    // Published but missing from storage, unknown, unpublished: still every id invalid, on any page.
    const hopeless = [ids[3], unknown, ids[4]];
    expectError(
      await postJson(`${base}/original-photos?page=1&page_size=2`, key, { method: 'image_ids', identifier: hopeless }),
      400,
    );
    expectError(
      await postJson(`${base}/original-photos?page=3&page_size=2`, key, { method: 'image_ids', identifier: hopeless }),
      400,
    );
  });

  it.each([
    ['no body', undefined],
    ['no method', { identifier: '77' }],
    ['an unknown method', { method: 'name', identifier: '77' }],
    ['a method that is not a string', { method: 7, identifier: '77' }],
    ['no identifier', { method: 'bib' }],
    ['an empty identifier', { method: 'bib', identifier: '  ' }],
    ['a list for bib', { method: 'bib', identifier: ['77'] }],
    ['a number for image_id', { method: 'image_id', identifier: 5 }],
    ['a string for image_ids', { method: 'image_ids', identifier: 'x' }],
    ['an empty list for image_ids', { method: 'image_ids', identifier: [] }],
    ['a list with a number for image_ids', { method: 'image_ids', identifier: ['a', 1] }],
    ['a body that is an array', [1, 2]],
  ])('%s is a 400', async (_name, body) => {
    expectError(await postJson(`${base}/original-photos`, key, body), 400);
  });

  it('another organisation cannot download this event’s originals', async () => {
    const stranger = await fixtures.organisation();
    expectError(await postJson(`${base}/original-photos`, stranger.key, { method: 'bib', identifier: '77' }), 403);
  });
});
