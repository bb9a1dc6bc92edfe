import { api, bumpContentVersion, closeDb, expectError, expectSuccess, fixtures, info, sql } from './support/platform';

const t = (iso: string) => new Date(iso);

describe('all photos and image details', () => {
  let orgId: number;
  let key: string;
  let eventId: number;
  let ids: string[];

  beforeAll(async () => {
    ({ orgId, key } = await fixtures.organisation());
    eventId = await fixtures.event(orgId);
    // Inserted out of order on purpose; two share a timestamp; two are untimed; one is not published.
    ids = await fixtures.photos(eventId, [
      { capturedAt: t('2026-05-17T10:00:00Z') },
      { capturedAt: null },
      { capturedAt: t('2026-05-17T08:00:00Z') },
      { capturedAt: t('2026-05-17T09:00:00Z') },
      { capturedAt: t('2026-05-17T09:00:00Z') },
      { capturedAt: null },
      { capturedAt: t('2026-05-17T07:00:00Z'), published: false },
    ]);
  });
  afterAll(closeDb);

  it('orders by capture time ascending, untimed last, stable across pages', async () => {
    const seen: any[] = [];
    for (let page = 1; page <= 3; page++) {
      const data = expectSuccess(await api(`/${orgId}/event/${eventId}/images?page=${page}&page_size=2`, { key }));
      expect(data.pagination).toEqual({
        total: 6,
        currentPage: page,
        totalPages: 3,
        hasNextPage: page < 3,
        hasPreviousPage: page > 1,
        page_size: 2,
      });
      seen.push(...data.images);
    }
    const times = seen.map((i) => i.meta_info.photo_timestamp);
    expect(times.slice(0, 4)).toEqual([1779004800, 1779008400, 1779008400, 1779012000]);
    expect(times.slice(4)).toEqual([null, null]);
    expect(new Set(seen.map((i) => i.image_id)).size).toBe(6);
    expect(seen.map((i) => i.image_id)).not.toContain(ids[6]);
    const tied = [ids[3], ids[4]].sort();
    expect([seen[1].image_id, seen[2].image_id]).toEqual(tied);
  });

  it('returns items with previews, null original_url and meta_info', async () => {
    const data = expectSuccess(await api(`/${orgId}/event/${eventId}/images?page_size=1`, { key }));
    const item = data.images[0];
    expect(item).toEqual({
      img_url: expect.stringMatching(/^http:\/\/.+\/public\/\d+\/large\/[0-9a-f-]{36}\.jpg$/),
      height: 1067,
      width: 1600,
      image_id: ids[2],
      thumbnail_url: expect.stringMatching(/\/public\/\d+\/thumb\/[0-9a-f-]{36}\.jpg$/),
      original_url: null,
      meta_info: {
        photo_timestamp: 1779004800,
        photographer_name: 'Test Photographer',
        original_file_name: expect.stringMatching(/^IMG_.+\.jpg$/),
        source: 'test',
        image_path: `originals/${eventId}/${ids[2]}.jpg`,
        external_drive_url: null,
      },
    });
  });

  it('uses the default page size 32 and clamps above 100', async () => {
    expect(expectSuccess(await api(`/${orgId}/event/${eventId}/images`, { key })).pagination.page_size).toBe(32);
    expect(
      expectSuccess(await api(`/${orgId}/event/${eventId}/images?page_size=101`, { key })).pagination.page_size,
    ).toBe(100);
  });

  it('a page beyond the last is empty but keeps the totals', async () => {
    const data = expectSuccess(await api(`/${orgId}/event/${eventId}/images?page=9&page_size=2`, { key }));
    expect(data.images).toEqual([]);
    expect(data.pagination).toMatchObject({
      total: 6,
      currentPage: 9,
      totalPages: 3,
      hasNextPage: false,
      hasPreviousPage: true,
    });
    // The largest page number of the schema, times the largest page size, is still an empty page (no overflow).
    const far = expectSuccess(await api(`/${orgId}/event/${eventId}/images?page=2147483647&page_size=100`, { key }));
    expect(far.images).toEqual([]);
    expect(far.pagination).toMatchObject({ total: 6, currentPage: 2147483647, hasNextPage: false });
  });

  it('every page size pages through the same order, whichever end a page is read from', async () => {
    const all = expectSuccess(await api(`/${orgId}/event/${eventId}/images?page_size=100`, { key })).images.map(
      (i: any) => i.image_id,
    );
    expect(all).toHaveLength(6);
    for (const size of [1, 3, 4, 5]) {
      const seen: string[] = [];
      for (let page = 1; page <= Math.ceil(6 / size); page++) {
        seen.push(
          ...expectSuccess(
            await api(`/${orgId}/event/${eventId}/images?page=${page}&page_size=${size}`, { key }),
          ).images.map((i: any) => i.image_id),
        );
      }
      expect(seen).toEqual(all);
    }
  });

  it('keeps the published count on publish, unpublish, move and delete: the total is the real number', async () => {
    const counted = await fixtures.event(orgId);
    const other = await fixtures.event(orgId);
    const photoIds = await fixtures.photos(counted, [
      { capturedAt: t('2026-05-17T10:00:00Z') },
      { capturedAt: null },
      { capturedAt: t('2026-05-17T08:00:00Z'), published: false },
      { capturedAt: t('2026-05-17T09:00:00Z') },
    ]);
    const expectTotals = async (event: number, total: number) => {
      // The changes below are made in SQL; the services would bump the content version with them.
      await bumpContentVersion(event);
      const [real] = await sql<{ n: number }>(
        'select count(*)::int as n from photos where event_id = $1 and published_at is not null',
        [event],
      );
      expect(real.n).toBe(total);
      const [kept] = await sql<{ published: number }>('select published from event_photo_counts where event_id = $1', [
        event,
      ]);
      expect(kept?.published ?? 0).toBe(total);
      expect(expectSuccess(await api(`/${orgId}/event/${event}/images?page_size=1`, { key })).pagination.total).toBe(
        total,
      );
    };
    await expectTotals(counted, 3);
    await sql('update photos set published_at = now() where id = $1', [photoIds[2]]); // published
    await expectTotals(counted, 4);
    await sql('update photos set published_at = now() where id = $1', [photoIds[2]]); // published again: no change
    await expectTotals(counted, 4);
    await sql('update photos set published_at = null where id = any($1::uuid[])', [[photoIds[0], photoIds[1]]]); // unpublished
    await expectTotals(counted, 2);
    await sql('update photos set event_id = $1 where id = $2', [other, photoIds[3]]); // moved to another event
    await expectTotals(counted, 1);
    await expectTotals(other, 1);
    await sql('delete from photos where id = $1', [photoIds[2]]);
    await expectTotals(counted, 0);
    await sql('update photos set published_at = now() where event_id = $1', [counted]); // go-live publishes the rest at once
    await expectTotals(counted, 2);
    await sql('delete from events where id = $1', [other]);
    expect(await sql('select * from event_photo_counts where event_id = $1', [other])).toEqual([]);
  });

  it('gives image details, and 404 for an image of another event, unpublished or unknown', async () => {
    const data = expectSuccess(await api(`/${orgId}/event/${eventId}/images/${ids[0]}`, { key }));
    expect(data).toMatchObject({ image_id: ids[0], original_url: null, meta_info: { photo_timestamp: 1779012000 } });
    const otherEvent = await fixtures.event(orgId);
    expectError(await api(`/${orgId}/event/${otherEvent}/images/${ids[0]}`, { key }), 404);
    expectError(await api(`/${orgId}/event/${eventId}/images/${ids[6]}`, { key }), 404);
    expectError(await api(`/${orgId}/event/${eventId}/images/00000000-0000-4000-8000-000000000000`, { key }), 404);
    expectError(await api(`/${orgId}/event/${eventId}/images/not-a-uuid`, { key }), 404);
  });

  it('the demo has bibs to find: its drawn race photos are found by their numbers', async () => {
    for (const bib of ['1207', '2315']) {
      const data = expectSuccess(await api(`/${info.demo.orgId}/event/${info.demo.eventId}/bibs/${bib}`));
      expect(data.images).toHaveLength(1);
    }
  });

  it('serves the demo photos: previews that really load on the media host, originals not public', async () => {
    const data = expectSuccess(await api(`/${info.demo.orgId}/event/${info.demo.eventId}/images`));
    expect(data.images).toHaveLength(8);
    for (const image of data.images) {
      for (const url of [image.img_url, image.thumbnail_url]) {
        const res = await fetch(url);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('image/jpeg');
        const bytes = Buffer.from(await res.arrayBuffer());
        expect(bytes.subarray(0, 2).toString('hex')).toBe('ffd8');
      }
      expect(Math.max(image.width, image.height)).toBe(1600);
      expect(image.meta_info.photo_timestamp).toEqual(expect.any(Number));
      const original = await fetch(`${image.img_url.split('/public/')[0]}/${image.meta_info.image_path}`);
      expect(original.status).toBe(403);
    }
  });
});
