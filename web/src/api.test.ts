import { Api, ApiError, humanMessage } from './api';
import { hourWindow } from './time';

describe('API answers as the participant reads them', () => {
  const realFetch = global.fetch;
  afterEach(() => {
    global.fetch = realFetch;
  });

  it('sends the browser key and returns the envelope data', async () => {
    let seen: { url: string; key: string | null } | null = null;
    global.fetch = (async (url: string, init: RequestInit) => {
      seen = { url, key: new Headers(init.headers).get('x-api-key') };
      return new Response(JSON.stringify({ responseType: 'success', message: 'ok', data: { event_name: 'E' } }), {
        status: 200,
      });
    }) as typeof fetch;
    await expect(new Api('/api/v1/ext/1/event/2', 'em_k').details()).resolves.toEqual({ event_name: 'E' });
    expect(seen).toEqual({ url: '/api/v1/ext/1/event/2/details', key: 'em_k' });
  });

  it('turns every failure into a sentence, never the raw JSON', async () => {
    global.fetch = async () =>
      new Response(JSON.stringify({ responseType: 'error', message: 'FORBIDDEN: flag selfieSearch', data: null }), {
        status: 403,
      });
    const error = await new Api('/b', 'k').searchFaces(new File([new Uint8Array(3)], 's.jpg')).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe('Search by selfie is not available for this event.');
    global.fetch = async () => {
      throw new TypeError('network');
    };
    expect((await new Api('/b', 'k').bib('1', 1).catch((e) => e)).message).toMatch(/could not be reached/);
    global.fetch = async () => new Response('<html>bad gateway</html>', { status: 502 });
    expect((await new Api('/b', 'k').photos(1).catch((e) => e)).message).toMatch(/on our side/);
    for (const status of [400, 401, 403, 404, 413, 415, 422, 429, 500])
      expect(humanMessage(status, 'selfie')).not.toMatch(/[{}]/);
  });

  it('a timeline bucket (UTC date and hour) is an epoch-second window', () => {
    expect(hourWindow('2026-05-17', 9)).toEqual({
      from: Date.UTC(2026, 4, 17, 9) / 1000,
      to: Date.UTC(2026, 4, 17, 10) / 1000,
    });
    expect(hourWindow('2026-05-17', null)).toEqual({
      from: Date.UTC(2026, 4, 17) / 1000,
      to: Date.UTC(2026, 4, 18) / 1000,
    });
  });
});

describe('prefetch', () => {
  const realFetch = global.fetch;
  afterEach(() => {
    global.fetch = realFetch;
  });

  it('the first page starts before it is asked for and is fetched once; later calls fetch again', async () => {
    const urls: string[] = [];
    global.fetch = (async (url: string) => {
      urls.push(url);
      return new Response(JSON.stringify({ responseType: 'success', message: 'ok', data: { n: urls.length } }), {
        status: 200,
      });
    }) as typeof fetch;
    const api = new Api('/b', 'k');
    api.prefetch((a) => a.photos(1));
    expect(urls).toEqual(['/b/images?page=1&page_size=24']);
    await expect(api.photos(1)).resolves.toEqual({ n: 1 });
    await expect(api.photos(1)).resolves.toEqual({ n: 2 });
    expect(urls).toHaveLength(2);
  });
});
