import { PLATFORM_OPERATOR } from '@em/subgraph-events';
import { administrationOf, api, closeDb, expectError, expectSuccess, fixtures } from './support/platform';

/**
 * Conditional GETs and shared reads on the real platform: ETags from the event's content version,
 * 304 without the read, changes seen by the very next request, and no 304 to a caller the read
 * would refuse.
 */
describe('HTTP caching of reads', () => {
  let orgId: number;
  let key: string;
  let eventId: number;
  let base: string;
  const at = (minute: number) => new Date(Date.UTC(2026, 4, 3, 9, minute));

  beforeAll(async () => {
    ({ orgId, key } = await fixtures.organisation());
    eventId = await fixtures.event(orgId);
    base = `/${orgId}/event/${eventId}`;
    await fixtures.photos(eventId, [
      { capturedAt: at(1), bibs: ['501'] },
      { capturedAt: at(2) },
      { capturedAt: at(3), published: false },
    ]);
  });
  afterAll(closeDb);

  it('tags every read of the event, answers a current copy 304, and a publish is seen by the next request', async () => {
    const first = await api(`${base}/images?page_size=10`, { key });
    expect(expectSuccess(first).pagination.total).toBe(2);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{22}(-br|-gzip)?"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    for (const path of ['/details', '/timeline/days', `/bibs/501`, '/images?page_size=10']) {
      const res = await api(`${base}${path}`, { key });
      expect(res.status).toBe(200);
      const again = await api(`${base}${path}`, { key, headers: { 'if-none-match': res.headers.get('etag')! } });
      expect({ path, status: again.status, body: again.body }).toEqual({ path, status: 304, body: '' });
    }

    // Go-live through the API publishes the third photo: the old copy is stale at once, cached or not.
    expectSuccess(await api(`${base}/pipeline/photos/go-live`, { key, method: 'POST' }));
    const revalidated = await api(`${base}/images?page_size=10`, { key, headers: { 'if-none-match': etag } });
    expect(expectSuccess(revalidated).pagination.total).toBe(3);
    expect(revalidated.headers.get('etag')).not.toBe(etag);
    expect(expectSuccess(await api(`${base}/timeline/days`, { key })).days[0].total).toBe(3);
  });

  it('a setting changed by the organiser is seen by the next request', async () => {
    const before = await api(`${base}/details`, { key });
    expect(expectSuccess(before).event_name).not.toBe('Renamed');
    const admin = await administrationOf();
    await admin.eventAdmin.update(PLATFORM_OPERATOR, orgId, eventId, { name: 'Renamed' });
    const after = await api(`${base}/details`, { key, headers: { 'if-none-match': before.headers.get('etag')! } });
    expect(after.status).toBe(200);
    expect(expectSuccess(after).event_name).toBe('Renamed');
  });

  it('never answers 304 to a caller the read would refuse: no key, a bad key, a host off the allowlist, a flag off', async () => {
    const browserKey = await fixtures.apiKey(orgId, { allowedHosts: ['photos.example.org'], readOnly: true });
    const allowed = { origin: 'https://photos.example.org' };
    const days = await api(`${base}/timeline/days`, { key: browserKey, headers: allowed });
    const etag = days.headers.get('etag')!;
    expect(
      (await api(`${base}/timeline/days`, { key: browserKey, headers: { ...allowed, 'if-none-match': etag } })).status,
    ).toBe(304);
    expectError(
      await api(`${base}/timeline/days`, {
        key: browserKey,
        headers: { origin: 'https://evil.example', 'if-none-match': etag },
      }),
      403,
    );
    expectError(await api(`${base}/timeline/days`, { key: null, headers: { 'if-none-match': etag } }), 401);
    expect([401, 403]).toContain(
      (await api(`${base}/timeline/days`, { key: 'em_not_a_key', headers: { 'if-none-match': etag } })).status,
    );
    const other = await fixtures.organisation();
    expectError(await api(`${base}/timeline/days`, { key: other.key, headers: { 'if-none-match': etag } }), 403);

    const admin = await administrationOf();
    await admin.eventAdmin.update(PLATFORM_OPERATOR, orgId, eventId, { timelineSearch: false });
    try {
      expectError(
        await api(`${base}/timeline/days`, { key: browserKey, headers: { ...allowed, 'if-none-match': etag } }),
        403,
      );
    } finally {
      await admin.eventAdmin.update(PLATFORM_OPERATOR, orgId, eventId, { timelineSearch: true });
    }
  });

  it('compresses JSON by Accept-Encoding', async () => {
    await fixtures.photos(
      eventId,
      Array.from({ length: 20 }, (_, i) => ({ capturedAt: at(10 + i) })),
    );
    const url = `${base}/images?page_size=30`;
    const gzip = await api(url, { key, headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    expect(expectSuccess(gzip).images).toHaveLength(23);
    const br = await api(url, { key, headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.body).toEqual(gzip.body);
    expect(br.headers.get('etag')).toMatch(/-br"$/);
  });
});
