import { closeDb, fixtures, gql } from '../support/platform';

describe('#4 a read-only (browser) key sees no organiser views', () => {
  afterAll(closeDb);

  it('#4 lists no draft events, reads no face-search billing and no event videos; a server key of the organisation does', async () => {
    const { orgId, key } = await fixtures.organisation();
    const live = await fixtures.event(orgId, { status: 'active', videoSearch: true });
    const draft = await fixtures.event(orgId, { status: 'draft' });
    const browserKey = await fixtures.apiKey(orgId, { readOnly: true });
    const list = 'query($o: Int!) { events(orgId: $o) { items { id } } }';
    const seen = await gql(list, { o: orgId }, browserKey);
    expect(seen.body.data.events.items.map((e: { id: number }) => e.id)).toEqual([live]);
    expect((await gql(list, { o: orgId }, key)).body.data.events.items.map((e: { id: number }) => e.id).sort()).toEqual([live, draft].sort());

    const billing = 'query($o: Int!) { faceSearchUsage(orgId: $o) { billableSearches } }';
    expect((await gql(billing, { o: orgId }, browserKey)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await gql(billing, { o: orgId }, key)).body.data.faceSearchUsage).toEqual({ billableSearches: 0 });

    const videos = 'query($o: Int!, $e: Int!) { eventVideos(orgId: $o, eventId: $e) { originalFileName } }';
    expect((await gql(videos, { o: orgId, e: live }, browserKey)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await gql(videos, { o: orgId, e: live }, key)).body.data.eventVideos).toEqual([]);
  });
});
