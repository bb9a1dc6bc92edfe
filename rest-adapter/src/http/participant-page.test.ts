import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { participantPage } from './participant-page';

async function serve(distDir: string) {
  const page = participantPage({ distDir, mediaUrl: 'http://media.example:9000/bucket' });
  const server = http.createServer((req, res) => {
    void page(req.url!, req.method!, res).then((served) => served || res.writeHead(418).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(r)),
  };
}

describe('the participant page', () => {
  const dist = mkdtempSync(path.join(tmpdir(), 'web-dist-'));
  mkdirSync(path.join(dist, 'assets'));
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>page</title>');
  writeFileSync(path.join(dist, 'assets', 'app-ABC123.js'), 'console.log(1)');
  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  it('serves one page per event under a strict CSP naming only this origin and the media host', async () => {
    const s = await serve(dist);
    try {
      const res = await fetch(`${s.url}/events/12/34`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('<title>page</title>');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain("img-src 'self' blob: data: http://media.example:9000;");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
      expect(res.headers.get('cache-control')).toBe('no-cache');
    } finally {
      await s.close();
    }
  });

  it('serves hashed assets with a year-long immutable cache, and nothing outside assets/', async () => {
    const s = await serve(dist);
    try {
      const asset = await fetch(`${s.url}/events/assets/app-ABC123.js`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect((await fetch(`${s.url}/events/assets/missing-1.js`)).status).toBe(404);
      for (const probe of [
        '/events/assets/..%2Findex.html',
        '/events/assets/../index.html',
        '/events/1/x',
        '/events/1',
        '/events/1/2/3',
      ]) {
        expect((await fetch(`${s.url}${probe}`)).status).toBe(418);
      }
      expect((await fetch(`${s.url}/events/1/2`, { method: 'POST' })).status).toBe(418);
    } finally {
      await s.close();
    }
  });
});
