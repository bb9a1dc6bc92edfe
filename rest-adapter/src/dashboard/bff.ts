import { AppError, clientAddress, Logger, newId, parseCookies, TrustProxy } from '@em/core';
import { readFile } from 'node:fs/promises';
import http, { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import { Transform } from 'node:stream';
import { request } from 'undici';
import { LoginTransactions } from './login-transaction';
import { OidcClient, pkcePair } from './oidc-client';
import { SessionStore } from './session-store';
import { randomBytes } from 'node:crypto';

/** Pages of the dashboard (the page routes itself); each answers the same index.html. */
const EVENT_PAGES = 'settings|photos|review|videos|start-list';
const PAGE_PATH = new RegExp(
  `^/dashboard(?:/(?:events(?:/\\d{1,9}(?:/(?:${EVENT_PAGES}))?)?|developer|members|usage|signed-out)?)?/?$`,
);
const ASSET_PATH = /^\/dashboard\/assets\/([\w-]+\.(js|css))$/;
const ASSET_TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
const LOGIN_TTL_SECONDS = 600;
const JSON_LIMIT_BYTES = 256 * 1024;
/** What the session's answer carries besides the session: the page's organisations (one round trip fewer). */
const ORGANISATIONS = '{ organisations { id name role } }';

export interface DashboardOptions {
  /** The dashboard's public URL, ending in `/dashboard/`. */
  publicUrl: string;
  /** The built dashboard (index.html and assets/). */
  distDir: string;
  /** Where previews come from (MEDIA_URL). */
  mediaUrl: string;
  /** The origin the browser uploads photos to (the bucket's, as presigned URLs name it). */
  storageOrigin: string;
  gatewayUrl: string;
  /** Null when no client secret is configured: the dashboard answers 503 and explains. */
  oidc: OidcClient | null;
  /** Sign-ins in progress, sealed into the browser's cookie (with oidc). */
  logins: LoginTransactions | null;
  sessions: SessionStore | null;
  sessionSeconds: number;
  /** How often an open WebSocket's session is looked up again (it closes once the session ended); default 30 s. */
  liveSessionCheckMs?: number;
  /** Largest upload forwarded (one photo per request). */
  maxUploadBytes: number;
  trustProxy: TrustProxy;
  logger: Logger;
}

/** The dashboard's CSP: the participant page's, its own origin for API calls and the bucket's for uploads, no framing. */
export function dashboardCsp(mediaUrl: string, storageOrigin: string): string {
  const media = new URL(mediaUrl).origin;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' blob: data: ${media}`,
    `connect-src 'self' ${new URL(storageOrigin).origin}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * Only a path of the dashboard may be returned to after sign-in (no open redirect), and not the page that says the
 * member is signed out (where "Sign in" is pressed after signing out).
 */
function safeReturnTo(value: string | null): string {
  const fits = value && PAGE_PATH.test(value) && !value.includes('//') && !/^\/dashboard\/signed-out\/?$/.test(value);
  return fits ? value : '/dashboard/events';
}

/**
 * The dashboard's backend-for-frontend: the OpenID Connect sign-in (authorization code + PKCE,
 * state and nonce), the session in an httpOnly SameSite=Strict cookie, sign-out (revocation and the
 * provider's end session), and `/dashboard/api/graphql`, which forwards the page's GraphQL (JSON or
 * multipart uploads) to the gateway with the session's access token. The page never sees a token.
 */
export function dashboard(opts: DashboardOptions) {
  const secure = new URL(opts.publicUrl).protocol === 'https:';
  const origin = new URL(opts.publicUrl).origin;
  // Under TLS the __Host- prefix pins the cookie to this host, Secure and path /.
  const SESSION_COOKIE = secure ? '__Host-em_dashboard' : 'em_dashboard';
  const LOGIN_COOKIE = secure ? '__Host-em_dashboard_login' : 'em_dashboard_login';
  const cookiePath = secure ? '/' : '/dashboard';
  const csp = dashboardCsp(opts.mediaUrl, opts.storageOrigin);
  const gateway = new URL(opts.gatewayUrl);
  let html: Promise<Buffer> | null = null;

  const cookie = (name: string, value: string, maxAge: number, sameSite: 'Strict' | 'Lax') =>
    `${name}=${value}; Path=${cookiePath}; HttpOnly; SameSite=${sameSite}; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;

  function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}) {
    res.writeHead(status, {
      ...COMMON_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      ...headers,
    });
    res.end(JSON.stringify(body));
  }

  function text(res: ServerResponse, status: number, message: string) {
    res
      .writeHead(status, {
        ...COMMON_HEADERS,
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
      })
      .end(message);
  }

  async function servePage(res: ServerResponse, method: string) {
    html ??= readFile(path.join(opts.distDir, 'index.html')).catch((err) => {
      html = null;
      throw err;
    });
    const body = await html.catch(() => null);
    if (!body) return text(res, 503, 'The dashboard is not built (npm run build).');
    res.writeHead(200, {
      ...COMMON_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      'cache-control': 'no-cache',
    });
    res.end(method === 'HEAD' ? undefined : body);
  }

  async function serveAsset(res: ServerResponse, name: string, type: string, method: string) {
    const body = await readFile(path.join(opts.distDir, 'assets', name)).catch(() => null);
    if (!body) return text(res, 404, 'not found');
    res.writeHead(200, {
      ...COMMON_HEADERS,
      'content-type': ASSET_TYPES[type],
      'cache-control': 'public, max-age=31536000, immutable',
    });
    res.end(method === 'HEAD' ? undefined : body);
  }

  async function login(res: ServerResponse, query: URLSearchParams) {
    const state = randomBytes(24).toString('base64url');
    const nonce = randomBytes(24).toString('base64url');
    const { verifier, challenge } = pkcePair();
    const sealed = opts.logins!.seal(
      state,
      { codeVerifier: verifier, nonce, returnTo: safeReturnTo(query.get('return')) },
      LOGIN_TTL_SECONDS,
    );
    const location = await opts.oidc!.authorizationUrl(state, nonce, challenge);
    // Lax: the provider's redirect back is a top-level navigation from its site, which Strict would not carry.
    res.writeHead(302, {
      ...COMMON_HEADERS,
      location,
      'cache-control': 'no-store',
      'set-cookie': cookie(LOGIN_COOKIE, sealed, LOGIN_TTL_SECONDS, 'Lax'),
    });
    res.end();
  }

  async function callback(req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
    const clearLogin = cookie(LOGIN_COOKIE, '', 0, 'Lax');
    const state = query.get('state') ?? '';
    const bound = parseCookies(req.headers.cookie)[LOGIN_COOKIE];
    // The state must be the one this browser started with: a callback link from elsewhere is refused.
    const tx = state && bound ? opts.logins!.open(bound, state) : null;
    if (!tx) {
      res.setHeader('set-cookie', clearLogin);
      return text(
        res,
        400,
        'Sign-in refused: this answer does not belong to a sign-in started in this browser (state), or it has expired. Start again at /dashboard/.',
      );
    }
    const error = query.get('error');
    if (error) return text(res, 400, `Sign-in did not complete: ${error.slice(0, 100)}`);
    const code = query.get('code');
    if (!code) return text(res, 400, 'Sign-in refused: no authorization code');
    const tokens = await opts.oidc!.exchange(code, tx.codeVerifier, tx.nonce);
    const expiresAt = Date.now() + Math.min(opts.sessionSeconds, tokens.expiresInSeconds) * 1000;
    const { id } = await opts.sessions!.create({
      accessToken: tokens.accessToken,
      idToken: tokens.idToken,
      email: tokens.email,
      expiresAt,
    });
    const maxAge = Math.floor((expiresAt - Date.now()) / 1000);
    // A page rather than a redirect: the navigation it starts is same-site, so the Strict cookie goes with it.
    res.writeHead(200, {
      ...COMMON_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'cache-control': 'no-store',
      'set-cookie': [clearLogin, cookie(SESSION_COOKIE, id, maxAge, 'Strict')],
    });
    const target = tx.returnTo.replace(/"/g, '');
    res.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${target}"><title>Signed in</title></head><body><p><a href="${target}">Continue to the dashboard</a></p></body></html>`,
    );
  }

  function sessionId(req: IncomingMessage): string | null {
    return parseCookies(req.headers.cookie)[SESSION_COOKIE] ?? null;
  }

  /** A state-changing call must come from our page: the CSRF token of the session, and our origin when the browser names one. */
  function checkCsrf(req: IncomingMessage, csrfToken: string) {
    const given = req.headers['x-csrf-token'];
    const requestOrigin = req.headers.origin;
    if (typeof given !== 'string' || given !== csrfToken)
      throw new AppError('FORBIDDEN', 'Missing or wrong x-csrf-token');
    if (requestOrigin && requestOrigin !== origin) throw new AppError('FORBIDDEN', 'Cross-origin request refused');
  }

  async function logout(req: IncomingMessage, res: ServerResponse) {
    const id = sessionId(req);
    const session = id ? await opts.sessions!.find(id) : null;
    if (!session)
      return json(res, 401, { error: 'Not signed in' }, { 'set-cookie': cookie(SESSION_COOKIE, '', 0, 'Strict') });
    checkCsrf(req, session.csrfToken);
    await opts.sessions!.end(id!);
    const revoked = await opts.oidc!.revoke(session.accessToken, 'access_token');
    const endSessionUrl = await opts.oidc!.endSessionUrl(session.idToken);
    json(
      res,
      200,
      { signedOut: true, revoked, endSessionUrl },
      { 'set-cookie': cookie(SESSION_COOKIE, '', 0, 'Strict') },
    );
  }

  async function graphql(req: IncomingMessage, res: ServerResponse) {
    const id = sessionId(req);
    const session = id ? await opts.sessions!.find(id) : null;
    if (!session) {
      req.resume();
      return json(res, 401, { errors: [{ message: 'Not signed in', extensions: { code: 'UNAUTHENTICATED' } }] });
    }
    checkCsrf(req, session.csrfToken);
    const contentType = req.headers['content-type'] ?? '';
    const multipart = /^multipart\/form-data/i.test(contentType);
    if (!multipart && !/^application\/json/i.test(contentType))
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send application/json or multipart/form-data');
    const limit = multipart ? opts.maxUploadBytes + 1024 * 1024 : JSON_LIMIT_BYTES;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) throw new AppError('PAYLOAD_TOO_LARGE', `At most ${limit} bytes`);
    let seen = 0;
    const capped = req.pipe(
      new Transform({
        transform(chunk: Buffer, _enc, done) {
          seen += chunk.length;
          done(seen > limit ? new AppError('PAYLOAD_TOO_LARGE', `At most ${limit} bytes`) : null, chunk);
        },
      }),
    );
    const headers: Record<string, string> = {
      'content-type': contentType,
      accept: 'application/json',
      authorization: `Bearer ${session.accessToken}`,
      'x-request-id': newId(),
      'x-forwarded-for': clientAddress(req, opts.trustProxy),
      // The gateway's CSRF screen for multipart: this request is ours, and the page's CSRF token was checked above.
      'apollo-require-preflight': 'true',
    };
    const answer = await request(`${gateway.origin}${gateway.pathname}`, {
      method: 'POST',
      headers,
      body: capped,
      bodyTimeout: 120_000,
      headersTimeout: 120_000,
    });
    const body = await answer.body.text();
    res.writeHead(answer.statusCode, {
      ...COMMON_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    });
    res.end(body);
  }

  /** The account's organisations, asked of the gateway as the session; null when it did not answer them. */
  async function organisationsOf(req: IncomingMessage, accessToken: string): Promise<unknown[] | null> {
    try {
      const answer = await request(`${gateway.origin}${gateway.pathname}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: `Bearer ${accessToken}`,
          'x-request-id': newId(),
          'x-forwarded-for': clientAddress(req, opts.trustProxy),
        },
        body: JSON.stringify({ query: ORGANISATIONS }),
        bodyTimeout: 30_000,
        headersTimeout: 30_000,
      });
      const body = (await answer.body.json()) as { data?: { organisations?: unknown } };
      const organisations = body.data?.organisations;
      return answer.statusCode === 200 && Array.isArray(organisations) ? organisations : null;
    } catch (err) {
      opts.logger.warn({ err }, 'dashboard session: the organisations were not answered');
      return null;
    }
  }

  /** The session for the page, with the account's organisations: the page's first screen needs both. */
  async function sessionInfo(req: IncomingMessage, res: ServerResponse) {
    const id = sessionId(req);
    const session = id ? await opts.sessions!.find(id) : null;
    if (!session) return json(res, 401, { signedIn: false });
    json(res, 200, {
      signedIn: true,
      email: session.email,
      csrfToken: session.csrfToken,
      expiresAt: new Date(session.expiresAt).toISOString(),
      organisations: await organisationsOf(req, session.accessToken),
    });
  }

  /**
   * The page's graphql-ws subscriptions (`/dashboard/api/graphql`, WebSocket): passed to the gateway with the
   * session's bearer token. A browser always names the Origin of a WebSocket: only ours is let in (no
   * cross-site WebSocket hijacking; the Strict cookie would not come along either).
   */
  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const refuse = (status: number, reason: string): void =>
      void socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    socket.on('error', () => socket.destroy());
    if ((req.url ?? '').split('?')[0] !== '/dashboard/api/graphql' || !opts.sessions) return refuse(404, 'Not Found');
    if (req.headers.origin !== origin) return refuse(403, 'Forbidden');
    const id = sessionId(req);
    const session = id ? await opts.sessions.find(id) : null;
    if (!session) return refuse(401, 'Unauthorized');
    const forwarded: http.OutgoingHttpHeaders = {
      connection: 'Upgrade',
      upgrade: 'websocket',
      authorization: `Bearer ${session.accessToken}`,
      'x-forwarded-for': clientAddress(req, opts.trustProxy),
    };
    for (const name of ['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-protocol'])
      if (req.headers[name]) forwarded[name] = req.headers[name];
    const upstream = http.request({
      host: gateway.hostname,
      port: gateway.port,
      path: gateway.pathname,
      method: 'GET',
      headers: forwarded,
    });
    upstream.on('upgrade', (answer, gatewaySocket, gatewayHead) => {
      const lines = ['HTTP/1.1 101 Switching Protocols'];
      for (let i = 0; i < answer.rawHeaders.length; i += 2)
        lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (gatewayHead.length) socket.write(gatewayHead);
      if (head.length) gatewaySocket.write(head);
      gatewaySocket.on('error', () => socket.destroy());
      socket.on('close', () => gatewaySocket.destroy());
      gatewaySocket.pipe(socket).pipe(gatewaySocket);
      closeWhenSessionEnds(id!, session.expiresAt, socket);
    });
    upstream.on('response', (answer) => {
      answer.resume();
      refuse(answer.statusCode ?? 502, 'Refused');
    });
    upstream.on('error', () => refuse(502, 'Bad Gateway'));
    upstream.end();
  }

  /**
   * A live connection lasts no longer than its session: it closes at the session's expiry, and once a look-up finds
   * the session gone (signed out, here or on another replica); the page's client then finds itself signed out.
   */
  function closeWhenSessionEnds(id: string, expiresAt: number, socket: Duplex) {
    const close = () => socket.destroy();
    const expiry = setTimeout(close, Math.max(0, expiresAt - Date.now()));
    const check = setInterval(() => {
      void opts.sessions!.find(id).then(
        (session) => session || close(),
        () => undefined, // Redis away: the session is not known to be over
      );
    }, opts.liveSessionCheckMs ?? 30_000);
    expiry.unref();
    check.unref();
    socket.on('close', () => {
      clearTimeout(expiry);
      clearInterval(check);
    });
  }

  /** Serves the dashboard's paths; false for any other path. */
  return Object.assign(serve, {
    upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      upgrade(req, socket, head).catch(() => socket.destroy()),
  });

  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    query: URLSearchParams,
  ): Promise<boolean> {
    if (pathname !== '/dashboard' && !pathname.startsWith('/dashboard/')) return false;
    const method = (req.method ?? 'GET').toUpperCase();
    try {
      const asset = ASSET_PATH.exec(pathname);
      if (asset && (method === 'GET' || method === 'HEAD')) await serveAsset(res, asset[1], asset[2], method);
      else if (PAGE_PATH.test(pathname) && (method === 'GET' || method === 'HEAD')) await servePage(res, method);
      else if (!opts.oidc || !opts.logins || !opts.sessions)
        text(
          res,
          503,
          'Sign-in is not configured: set DASHBOARD_CLIENT_SECRET (and OAUTH_ISSUER for an external provider).',
        );
      else if (pathname === '/dashboard/login' && method === 'GET') await login(res, query);
      else if (pathname === '/dashboard/callback' && method === 'GET') await callback(req, res, query);
      else if (pathname === '/dashboard/logout' && method === 'POST') await logout(req, res);
      else if (pathname === '/dashboard/api/session' && method === 'GET') await sessionInfo(req, res);
      else if (pathname === '/dashboard/api/graphql' && method === 'POST') await graphql(req, res);
      else text(res, 404, 'Not found');
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
        return true;
      }
      req.resume();
      if (err instanceof AppError && err.status < 500)
        json(res, err.status, { errors: [{ message: err.message, extensions: { code: err.code } }] });
      else {
        opts.logger.error({ err }, 'dashboard request failed');
        json(res, err instanceof AppError ? err.status : 502, {
          errors: [
            { message: err instanceof AppError ? err.message : 'The dashboard could not complete this request' },
          ],
        });
      }
    }
    return true;
  }
}

/** The built dashboard of the `dashboard` workspace. */
export function dashboardDistDir(): string {
  return path.join(path.dirname(require.resolve('@em/dashboard/package.json')), 'dist');
}
