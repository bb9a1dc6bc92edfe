import { ServerResponse } from 'node:http';
import { serveDocs } from './docs';

/** What serveDocs wrote: status, headers and body. */
async function get(pathname: string) {
  let status = 0;
  let headers: Record<string, string> = {};
  let body = '';
  const res = {
    writeHead(s: number, h: Record<string, string>) {
      status = s;
      headers = h;
      return res;
    },
    end(b: string | Buffer) {
      body = String(b);
      return res;
    },
  } as unknown as ServerResponse;
  const served = await serveDocs(pathname, { openapi: '3.1.0' }, res);
  return { served, status, headers, body };
}

describe('serveDocs', () => {
  it('answers the page under a CSP without inline scripts, with nosniff, and runs no inline script', async () => {
    const page = await get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const csp = page.headers['content-security-policy'];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.body).not.toMatch(/<script>(?!<\/script>)/);
    const start = await get('/docs/start.js');
    expect(start.body).toContain('SwaggerUIBundle');
    expect(start.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves the document and the assets with nosniff', async () => {
    expect((await get('/openapi.json')).headers['x-content-type-options']).toBe('nosniff');
    const css = await get('/docs/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(css.headers['x-content-type-options']).toBe('nosniff');
  });
});
