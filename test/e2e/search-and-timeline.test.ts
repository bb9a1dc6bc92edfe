import { api, closeDb, expectError, expectSuccess, fixtures } from './support/platform';

const t = (iso: string) => new Date(iso);
const epoch = (iso: string) => Date.parse(iso) / 1000;

describe('BIB search', () => {
  let orgId: number;
  let key: string;
  let eventId: number;
  let ids: string[];

  beforeAll(async () => {
    ({ orgId, key } = await fixtures.organisation());
    eventId = await fixtures.event(orgId);
    ids = await fixtures.photos(eventId, [
      { capturedAt: t('2026-05-17T09:10:00Z'), bibs: ['A12', '7'] },
      { capturedAt: t('2026-05-17T09:00:00Z'), bibs: ['a12'] },
      { capturedAt: null, bibs: ['A12'] },
      { capturedAt: t('2026-05-17T08:00:00Z'), bibs: ['99'] },
      { capturedAt: t('2026-05-17T08:30:00Z'), bibs: ['A12'], published: false },
    ]);
  });
  afterAll(closeDb);

  it('finds published photos of a BIB case-insensitively, in gallery order', async () => {
    for (const bib of ['A12', 'a12', '%20a12']) {
      const data = expectSuccess(await api(`/${orgId}/event/${eventId}/bibs/${bib}`, { key }));
      expect(data.images.map((i: any) => i.image_id)).toEqual([ids[1], ids[0], ids[2]]);
      expect(data.images[0]).not.toHaveProperty('meta_info');
      expect(data.images[0].original_url).toBeNull();
      expect(data.pagination).toEqual({
        total: 3,
        currentPage: 1,
        totalPages: 1,
        hasNextPage: false,
        hasPreviousPage: false,
        page_size: 32,
      });
    }
  });

  it('pages results', async () => {
    const data = expectSuccess(await api(`/${orgId}/event/${eventId}/bibs/a12?page=2&page_size=2`, { key }));
    expect(data.images.map((i: any) => i.image_id)).toEqual([ids[2]]);
    expect(data.pagination).toMatchObject({
      total: 3,
      currentPage: 2,
      totalPages: 2,
      hasPreviousPage: true,
      hasNextPage: false,
    });
  });

  it('an unknown BIB is an empty result, not an error', async () => {
    const data = expectSuccess(await api(`/${orgId}/event/${eventId}/bibs/4242`, { key }));
    expect(data).toEqual({
      images: [],
      pagination: {
        total: 0,
        currentPage: 0,
        totalPages: 0,
        hasNextPage: false,
        hasPreviousPage: false,
        page_size: 32,
      },
    });
  });

  it('is refused with 403 when bib_search is off or the event is disabled', async () => {
    const off = await fixtures.event(orgId, { bibSearch: false });
    expectError(await api(`/${orgId}/event/${off}/bibs/A12`, { key }), 403);
    const disabled = await fixtures.event(orgId, { enabled: false });
    expectError(await api(`/${orgId}/event/${disabled}/bibs/A12`, { key }), 403);
  });
});

describe('timeline', () => {
  let orgId: number;
  let key: string;
  let eventId: number;
  let ids: string[];

  beforeAll(async () => {
    ({ orgId, key } = await fixtures.organisation());
    eventId = await fixtures.event(orgId);
    ids = await fixtures.photos(eventId, [
      { capturedAt: t('2026-05-17T09:59:59Z') },
      { capturedAt: t('2026-05-17T09:00:00Z') },
      { capturedAt: t('2026-05-17T23:30:00Z') },
      { capturedAt: t('2026-05-18T00:00:00Z') },
      { capturedAt: t('2026-05-17T07:15:00Z') },
      { capturedAt: null },
      { capturedAt: t('2026-05-17T08:00:00Z'), published: false },
    ]);
  });
  afterAll(closeDb);

  it('counts per UTC day and hour, hours ascending, untimed excluded', async () => {
    const data = expectSuccess(await api(`/${orgId}/event/${eventId}/timeline/days`, { key }));
    expect(data).toEqual({
      days: [
        {
          date: '2026-05-17',
          total: 4,
          hours: [
            { hour: 7, count: 1 },
            { hour: 9, count: 2 },
            { hour: 23, count: 1 },
          ],
        },
        { date: '2026-05-18', total: 1, hours: [{ hour: 0, count: 1 }] },
      ],
    });
  });

  it('an event without timed photos has no days', async () => {
    const empty = await fixtures.event(orgId);
    expect(expectSuccess(await api(`/${orgId}/event/${empty}/timeline/days`, { key }))).toEqual({ days: [] });
  });

  it('returns the window [from, to) ascending', async () => {
    const from = epoch('2026-05-17T09:00:00Z');
    const to = epoch('2026-05-18T00:00:00Z');
    const data = expectSuccess(await api(`/${orgId}/event/${eventId}/timeline/images?from=${from}&to=${to}`, { key }));
    expect(data.images.map((i: any) => i.image_id)).toEqual([ids[1], ids[0], ids[2]]);
    expect(data.images[0]).not.toHaveProperty('meta_info');
    expect(data.pagination).toMatchObject({ total: 3, page_size: 32 });
    const paged = expectSuccess(
      await api(`/${orgId}/event/${eventId}/timeline/images?from=${from}&to=${to}&page=2&page_size=2`, { key }),
    );
    expect(paged.images.map((i: any) => i.image_id)).toEqual([ids[2]]);
    const none = expectSuccess(await api(`/${orgId}/event/${eventId}/timeline/images?from=0&to=1`, { key }));
    expect(none.pagination).toMatchObject({ total: 0, currentPage: 0 });
  });

  it('422 when from or to is missing or not an integer, 400 when to <= from', async () => {
    const base = `/${orgId}/event/${eventId}/timeline/images`;
    for (const q of ['', '?from=1', '?to=5', '?from=abc&to=5', '?from=1&to=5.5', '?from=&to=5', '?from=1e3&to=5000']) {
      expectError(await api(`${base}${q}`, { key }), 422);
    }
    expectError(await api(`${base}?from=100&to=100`, { key }), 400);
    expectError(await api(`${base}?from=100&to=99`, { key }), 400);
    expect((await api(`${base}?from=-100&to=99`, { key })).status).toBe(200);
  });

  it('both endpoints are refused with 403 when timeline_search is off', async () => {
    const off = await fixtures.event(orgId, { timelineSearch: false });
    expectError(await api(`/${orgId}/event/${off}/timeline/days`, { key }), 403);
    expectError(await api(`/${orgId}/event/${off}/timeline/images?from=0&to=10`, { key }), 403);
  });
});
