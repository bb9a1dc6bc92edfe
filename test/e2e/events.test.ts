import { api, closeDb, expectSuccess, fixtures, info } from './support/platform';

describe('events, details and ping', () => {
  afterAll(closeDb);

  it('lists the demo event with the spec fields', async () => {
    const data = expectSuccess(await api(`/${info.demo.orgId}/events`));
    expect(data.events).toEqual([
      {
        event_id: info.demo.eventId,
        event_name: 'Demo City 10K',
        event_slug: 'demo-city-10k',
        event_date: '2026-05-17T09:00:00',
        status: 'active',
        // The seed makes a sample photo the demo's cover (the participant page shows it).
        cover_image: expect.stringMatching(/^http.*\/large\//),
      },
    ]);
    expect(data.pagination).toEqual({
      total: 1,
      currentPage: 1,
      totalPages: 1,
      hasNextPage: false,
      hasPreviousPage: false,
      page_size: 10,
    });
  });

  it('pages events by 10 by default and up to 100, most recent first', async () => {
    const { orgId, key } = await fixtures.organisation();
    for (let i = 0; i < 23; i++)
      await fixtures.event(orgId, { eventDate: new Date(Date.UTC(2026, 0, 1 + i, 8)), name: `E${i}` });
    const first = expectSuccess(await api(`/${orgId}/events`, { key }));
    expect(first.events).toHaveLength(10);
    expect(first.events[0].event_name).toBe('E22');
    expect(first.events[0].event_date).toBe('2026-01-23T08:00:00');
    expect(first.pagination).toEqual({
      total: 23,
      currentPage: 1,
      totalPages: 3,
      hasNextPage: true,
      hasPreviousPage: false,
      page_size: 10,
    });
    const third = expectSuccess(await api(`/${orgId}/events?page=3`, { key }));
    expect(third.events.map((e: any) => e.event_name)).toEqual(['E2', 'E1', 'E0']);
    expect(third.pagination).toMatchObject({ currentPage: 3, hasNextPage: false, hasPreviousPage: true });
    const all = expectSuccess(await api(`/${orgId}/events?page_size=500`, { key }));
    expect(all.events).toHaveLength(23);
    expect(all.pagination.page_size).toBe(100);
  });

  it('an organisation without events gets the empty pagination', async () => {
    const { orgId, key } = await fixtures.organisation();
    const data = expectSuccess(await api(`/${orgId}/events`, { key }));
    expect(data).toEqual({
      events: [],
      pagination: {
        total: 0,
        currentPage: 0,
        totalPages: 0,
        hasNextPage: false,
        hasPreviousPage: false,
        page_size: 10,
      },
    });
  });

  it('returns every flag of the event; video_selfie_search needs video_search', async () => {
    const demo = expectSuccess(await api(`/${info.demo.orgId}/event/${info.demo.eventId}/details`));
    expect(demo).toEqual({
      event_id: info.demo.eventId,
      event_name: 'Demo City 10K',
      event_slug: 'demo-city-10k',
      event_date: '2026-05-17T09:00:00',
      status: 'active',
      event_enabled: true,
      bib_search: true,
      selfie_search: true,
      name_search: true,
      video_search: true,
      video_selfie_search: true,
      timeline_search: true,
      cover_image: expect.stringMatching(/^http.*\/large\//),
      time_zone: 'UTC',
    });
    const { orgId, key } = await fixtures.organisation();
    const eventId = await fixtures.event(orgId, {
      videoSearch: false,
      videoSelfieClipping: true,
      bibSearch: false,
      status: 'draft',
    });
    const details = expectSuccess(await api(`/${orgId}/event/${eventId}/details`, { key }));
    expect(details).toMatchObject({
      video_search: false,
      video_selfie_search: false,
      bib_search: false,
      status: 'draft',
      event_date: null,
    });
  });

  it('ping echoes the ids', async () => {
    const data = expectSuccess(await api(`/${info.demo.orgId}/event/${info.demo.eventId}/ping`));
    expect(data).toEqual({ status: 'ok', org_id: info.demo.orgId, event_id: info.demo.eventId });
  });
});
