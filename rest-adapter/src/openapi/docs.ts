import { readFile } from 'node:fs/promises';
import { ServerResponse } from 'node:http';
import path from 'node:path';

// swagger-ui-dist ships the browser assets; they are served from this process, nothing from a CDN.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ASSETS: string = require('swagger-ui-dist').getAbsoluteFSPath();
const ASSET_TYPES: Record<string, string> = { '.css': 'text/css', '.js': 'application/javascript', '.png': 'image/png', '.map': 'application/json' };

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Event photo &amp; video discovery API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="docs"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true });</script>
</body></html>`;

/** `/openapi.json` (the document) and `/docs` (a browsable page). Returns false for other paths. */
export async function serveDocs(pathname: string, document: unknown, res: ServerResponse): Promise<boolean> {
  if (pathname === '/openapi.json') {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(document));
    return true;
  }
  if (pathname === '/docs' || pathname === '/docs/') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    return true;
  }
  const asset = /^\/docs\/([\w.-]+)$/.exec(pathname)?.[1];
  const type = asset ? ASSET_TYPES[path.extname(asset)] : undefined;
  if (!asset || !type) return false;
  try {
    res.writeHead(200, { 'content-type': type, 'cache-control': 'public, max-age=3600' }).end(await readFile(path.join(ASSETS, asset)));
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }
  return true;
}
