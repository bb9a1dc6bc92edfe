import http from 'node:http';
import { AddressInfo } from 'node:net';
import { SubgraphFetcher } from './subgraph-fetcher';

describe('SubgraphFetcher', () => {
  let server: http.Server;
  let url: string;
  const received: Array<{ method?: string; url?: string; principal?: string; body: string }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ method: req.method, url: req.url, principal: req.headers['x-principal'] as string, body });
        res.writeHead(req.url === '/down' ? 503 : 200, {
          'content-type': 'application/json',
          'cache-control': 'private, max-age=0',
        });
        res.end(JSON.stringify({ data: { echo: body.length } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('posts the body and headers and gives the status, headers and JSON back', async () => {
    const fetcher = new SubgraphFetcher(2);
    const response = await fetcher.fetch(`${url}/graphql?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-principal': 'signed' },
      body: '{"query":"{a}"}',
    });
    expect(response.ok).toBe(true);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/json');
    expect(response.headers.get('cache-control')).toBe('private, max-age=0');
    expect(await response.json()).toEqual({ data: { echo: 15 } });
    expect(received.at(-1)).toEqual({
      method: 'POST',
      url: '/graphql?x=1',
      principal: 'signed',
      body: '{"query":"{a}"}',
    });
    const failed = await fetcher.fetch(`${url}/down`, { method: 'POST', body: '{}' });
    expect(failed.ok).toBe(false);
    expect(failed.status).toBe(503);
    await fetcher.close();
  });

  it('reports a subgraph that cannot be reached in the words the error mapping treats as unavailable', async () => {
    const fetcher = new SubgraphFetcher(1);
    await expect(fetcher.fetch('http://127.0.0.1:1/graphql', { method: 'POST', body: '{}' })).rejects.toThrow(
      /fetch failed.*ECONNREFUSED/,
    );
    await fetcher.close();
  });
});
