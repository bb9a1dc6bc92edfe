import { closeDb, expectError, fixtures, gql, info, postJson } from '../support/platform';

const LEVELS = 10_000;
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('#5 deeply nested JSON is a 400 before any recursive walk', () => {
  it('#5 GraphQL variables nested 10,000 levels: 400 BAD_REQUEST naming the depth, not 503', async () => {
    const body = `{"query":"query($o: Int!) { events(orgId: $o) { id } }","variables":{"o":${info.demo.orgId},"deep":${nested(LEVELS)}}}`;
    const res = await fetch(info.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': info.demo.apiKey },
      body,
    });
    const answer = (await res.json()) as { errors?: Array<{ message: string; extensions?: { code?: string } }> };
    expect(res.status).toBe(400);
    expect(answer.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    expect(answer.errors?.[0]?.message).toMatch(/deeper than \d+ levels/);
  });

  it('#5 a REST body nested 10,000 levels: 400 in the envelope naming the depth', async () => {
    const { orgId, eventId } = info.demo;
    const res = await fetch(`${info.restUrl}/api/v1/ext/${orgId}/event/${eventId}/original-photos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': info.demo.apiKey },
      body: `{"method":"image_ids","identifier":${nested(LEVELS)}}`,
    });
    const body = (await res.json()) as { responseType: string; message: string };
    expect(res.status).toBe(400);
    expect(body).toMatchObject({ responseType: 'error', message: expect.stringMatching(/deeper than \d+ levels/) });
  });
});

describe('#6 impossible input is a 400, never a 500', () => {
  afterAll(closeDb);

  it.each([
    'inbox/{e}/%2e%2e/originals/x.jpg',
    'inbox/{e}/%252e%252e/x.jpg',
    'inbox/{e}/a%5cb.jpg',
    'inbox/{e}//x.jpg',
  ])('#6 importing the inbox key %s: 400', async (pattern) => {
    const { orgId, key } = await fixtures.organisation();
    const eventId = await fixtures.event(orgId);
    const res = await postJson(`/${orgId}/event/${eventId}/pipeline/photos/import`, key, {
      keys: [pattern.replace('{e}', String(eventId))],
    });
    expectError(res, 400);
    expect(res.body.message).toMatch(/inbox/);
  });

  const usage =
    'query($o: Int!, $from: DateTimeISO, $to: DateTimeISO) { faceSearchUsage(orgId: $o, from: $from, to: $to) { billableSearches } }';
  it.each(['0000-00-00', '0000-01-01T00:00:00Z', '+275760-09-13T00:00:00Z', '275760-01-01T00:00:00Z'])(
    '#6 faceSearchUsage from %s: BAD_REQUEST or BAD_USER_INPUT (400), not INTERNAL',
    async (from) => {
      const res = await gql(usage, { o: info.demo.orgId, from });
      expect(['BAD_REQUEST', 'BAD_USER_INPUT']).toContain(res.body.errors?.[0]?.extensions?.code);
    },
  );
});
