import { info } from './support/platform';

/**
 * The gateway answers queries that one subgraph answers whole without Apollo's pipeline
 * (gateway/src/fast-path). A body with `extensions` is always left to Apollo: the same request
 * both ways must get the same status, headers and body, success or error.
 */
async function both(body: Record<string, unknown>, key: string | null = info.demo.apiKey) {
  const call = async (payload: Record<string, unknown>) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': 'single-fetch-e2e' };
    if (key) headers['x-api-key'] = key;
    const res = await fetch(info.gatewayUrl, { method: 'POST', headers, body: JSON.stringify(payload) });
    const kept = ['content-type', 'cache-control', 'x-request-id', 'retry-after'].map((name) => [
      name,
      res.headers.get(name),
    ]);
    return { status: res.status, headers: Object.fromEntries(kept), text: await res.text() };
  };
  const fast = await call(body);
  const apollo = await call({ ...body, extensions: {} });
  return { fast, apollo };
}

const GALLERY =
  'query AllPhotos($orgId: Int!, $eventId: Int!, $page: Int, $pageSize: Int) { photos(orgId: $orgId, eventId: $eventId, page: $page, pageSize: $pageSize) { items { id w: width meta { photoTimestamp originalFileName } } pageInfo { total currentPage totalPages } } }';

describe('the gateway single-fetch path', () => {
  it('answers a gallery page, aliases included, exactly as Apollo Gateway does', async () => {
    const { fast, apollo } = await both({
      query: GALLERY,
      variables: { orgId: info.demo.orgId, eventId: info.demo.eventId, pageSize: 3, page: 2 },
    });
    expect(fast.status).toBe(200);
    expect(JSON.parse(fast.text).data.photos.items[0]).toHaveProperty('w');
    expect(fast).toEqual(apollo);
  });

  it('answers errors exactly as Apollo Gateway does: unknown event, other organisation, bad variables, bad or missing key, NUL', async () => {
    const cases: Array<[Record<string, unknown>, string | null]> = [
      [{ query: GALLERY, variables: { orgId: info.demo.orgId, eventId: 999999 } }, info.demo.apiKey],
      [{ query: GALLERY, variables: { orgId: 999999, eventId: info.demo.eventId } }, info.demo.apiKey],
      [{ query: GALLERY, variables: { orgId: 'one', eventId: info.demo.eventId } }, info.demo.apiKey],
      [{ query: GALLERY, variables: { orgId: info.demo.orgId } }, info.demo.apiKey],
      [
        { query: GALLERY, variables: { orgId: info.demo.orgId, eventId: info.demo.eventId } },
        'emk_unknownKeyForSure123456',
      ],
      [{ query: GALLERY, variables: { orgId: info.demo.orgId, eventId: info.demo.eventId } }, null],
      [
        { query: GALLERY, variables: { orgId: info.demo.orgId, eventId: info.demo.eventId, bad: 'a\u0000b' } },
        info.demo.apiKey,
      ],
      [{ query: '{ ping(orgId: 1, eventId: 1) { status nope } }' }, info.demo.apiKey],
    ];
    for (const [body, key] of cases) {
      const { fast, apollo } = await both(body, key);
      expect({ body, answer: fast }).toEqual({ body, answer: apollo });
      expect(fast.status === 200 ? JSON.parse(fast.text).errors : fast.status).toBeDefined();
    }
  });
});
