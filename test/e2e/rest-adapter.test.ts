import { API, api, expectError, info } from './support/platform';

const demo = `/${info.demo.orgId}/event/${info.demo.eventId}`;

describe('REST adapter: envelope on every response', () => {
  it('unknown routes are 404 in the envelope', async () => {
    expectError(await api('/nothing/here'), 404);
    expectError(await api(`${demo}/unknown`), 404);
    const res = await fetch(`${API}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ responseType: 'error', data: null });
  });

  it('a wrong method is 405 with Allow', async () => {
    const res = await api(`${demo}/details`, { method: 'DELETE' });
    expectError(res, 405);
    expect(res.headers.get('allow')).toBe('GET');
    expectError(await api(`${demo}/faces`, { method: 'GET' }), 405);
  });

  it('malformed JSON is 400, a non-JSON body 415, an oversize body 413', async () => {
    const json = { 'content-type': 'application/json' };
    expectError(
      await api(`${demo}/original-photos`, { method: 'POST', headers: json, body: '{"method": "bib", ' }),
      400,
    );
    expectError(
      await api(`${demo}/original-photos`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'hello',
      }),
      415,
    );
    expectError(
      await api(`${demo}/original-photos`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }),
      }),
      413,
    );
  });

  it.each([
    ['page=0', 400],
    ['page=-1', 400],
    ['page=abc', 400],
    ['page=1.5', 400],
    ['page_size=0', 400],
    ['page_size=-3', 400],
    ['page_size=ten', 400],
    ['page=99999999999', 400],
  ])('paging parameter %s is a %i', async (query, status) => {
    expectError(await api(`${demo}/images?${query}`), status);
    expectError(await api(`/${info.demo.orgId}/events?${query}`), status);
  });

  it('path ids that are not positive integers are a 400', async () => {
    expectError(await api(`/abc/events`), 400);
    expectError(await api(`/${info.demo.orgId}/event/-4/details`), 400);
    expectError(await api(`/${info.demo.orgId}/event/1.5/ping`), 400);
  });

  it('success responses carry the envelope and JSON content type', async () => {
    const res = await api(`${demo}/ping`);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'responseType']);
  });
});

describe('REST adapter: odd request targets', () => {
  it('a request target that looks like a URL authority is just an unknown path (404), not a crash', async () => {
    const http = await import('node:http');
    const { hostname, port } = new URL(API);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: hostname, port, path: '//evil.example/api/v1/ext/1/events', method: 'GET' },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(404);
  });
});
