import { readFile } from 'node:fs/promises';
import { ServerResponse } from 'node:http';
import path from 'node:path';

// swagger-ui-dist ships the browser assets; they are served from this process, nothing from a CDN.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ASSETS = (require('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();
const ASSET_TYPES: Record<string, string> = {
  '.css': 'text/css',
  '.js': 'application/javascript',
  '.png': 'image/png',
  '.map': 'application/json',
};

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Event photo &amp; video discovery API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="docs"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/start.js"></script>
</body></html>`;

/** The page's one script of its own, served as a file so that the policy allows no inline script. */
const START_SCRIPT = "window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true });\n";

/**
 * The docs share the participant page's origin: scripts and API calls from this origin only, no
 * inline script, frame, form or `<base>`. Swagger UI sets inline styles and data: icons.
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
const DOCS_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': DOCS_CSP,
  'referrer-policy': 'same-origin',
};

/** `/openapi.json` (the document) and `/docs` (a browsable page). Returns false for other paths. */
export async function serveDocs(pathname: string, document: unknown, res: ServerResponse): Promise<boolean> {
  if (pathname === '/openapi.json') {
    res
      .writeHead(200, { ...DOCS_HEADERS, 'content-type': 'application/json; charset=utf-8' })
      .end(JSON.stringify(document));
    return true;
  }
  if (pathname === '/docs' || pathname === '/docs/') {
    res.writeHead(200, { ...DOCS_HEADERS, 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    return true;
  }
  if (pathname === '/docs/start.js') {
    res.writeHead(200, { ...DOCS_HEADERS, 'content-type': 'application/javascript; charset=utf-8' }).end(START_SCRIPT);
    return true;
  }
  const asset = /^\/docs\/([\w.-]+)$/.exec(pathname)?.[1];
  const type = asset ? ASSET_TYPES[path.extname(asset)] : undefined;
  if (!asset || !type) return false;
  try {
    res
      .writeHead(200, { ...DOCS_HEADERS, 'content-type': type, 'cache-control': 'public, max-age=3600' })
      .end(await readFile(path.join(ASSETS, asset)));
  } catch {
    res.writeHead(404, { ...DOCS_HEADERS, 'content-type': 'text/plain' }).end('not found');
  }
  return true;
}
