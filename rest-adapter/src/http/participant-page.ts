import { readFile } from 'node:fs/promises';
import { ServerResponse } from 'node:http';
import path from 'node:path';

/** `/events/{org_id}/{event_id}`: one page per event; the page itself finds the event through the REST API. */
const PAGE_PATH = /^\/events\/\d{1,9}\/\d{1,9}\/?$/;
/** Built assets carry a content hash in their name, so they may be cached for a year. */
const ASSET_PATH = /^\/events\/assets\/([\w-]+\.(js|css))$/;
const ASSET_TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

export interface ParticipantPageOptions {
  /** The built `web/` workspace (index.html and assets/). */
  distDir: string;
  /** Where previews and clips are served from (MEDIA_URL): the only other origin the page loads from. */
  mediaUrl: string;
}

/**
 * The page's Content-Security-Policy: scripts, styles and API calls from this origin only, images
 * and videos from here and the media host, no frames, forms, plugins or inline code.
 */
export function participantPageCsp(mediaUrl: string): string {
  const media = new URL(mediaUrl).origin;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' blob: data: ${media}`,
    `media-src ${media}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};

/** Serves the participant page and its assets; false for any other path. */
export function participantPage(opts: ParticipantPageOptions) {
  const csp = participantPageCsp(opts.mediaUrl);
  let html: Promise<Buffer> | null = null;
  return async function serve(pathname: string, method: string, res: ServerResponse): Promise<boolean> {
    if (method !== 'GET' && method !== 'HEAD') return false;
    if (PAGE_PATH.test(pathname)) {
      html ??= readFile(path.join(opts.distDir, 'index.html')).catch((err) => {
        html = null;
        throw err;
      });
      const body = await html.catch(() => null);
      if (!body) {
        res
          .writeHead(503, { 'content-type': 'text/plain; charset=utf-8' })
          .end('The participant page is not built (npm run build).');
        return true;
      }
      // Always revalidated: a new build names new assets.
      res.writeHead(200, {
        ...COMMON_HEADERS,
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': csp,
        'cache-control': 'no-cache',
      });
      res.end(method === 'HEAD' ? undefined : body);
      return true;
    }
    const asset = ASSET_PATH.exec(pathname);
    if (!asset) return false;
    const body = await readFile(path.join(opts.distDir, 'assets', asset[1])).catch(() => null);
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found');
      return true;
    }
    res.writeHead(200, {
      ...COMMON_HEADERS,
      'content-type': ASSET_TYPES[asset[2]],
      'cache-control': 'public, max-age=31536000, immutable',
    });
    res.end(method === 'HEAD' ? undefined : body);
    return true;
  };
}

/** The built page of the `web` workspace. */
export function webDistDir(): string {
  return path.join(path.dirname(require.resolve('@em/web/package.json')), 'dist');
}
