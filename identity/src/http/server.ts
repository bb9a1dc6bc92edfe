import { AppError, clientAddress, cookieValues, Logger, TrustProxy } from '@em/core';
import { PASSWORD_MIN_LENGTH } from '../accounts/passwords';
import { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { LocalAccountsService } from '../accounts/local-accounts.service';
import { messagePage, setPasswordPage, signInPage, STYLESHEET, STYLESHEET_PATH } from './pages';

/** The browser's device tokens from its last sign-ins and password settings (`SignInDevices`). */
const DEVICE_COOKIE = 'em_signin_device';
const DEVICE_COOKIE_DAYS = 180;
/**
 * A sign-in start (the authorization endpoint) is kept in Redis with its parameters: the dashboard's requests are a few
 * hundred characters; a longer one is refused before the provider stores it.
 */
const MAX_AUTHORIZATION_REQUEST = 2048;

/** Form bodies are a few fields: anything longer is refused before it is read whole. */
const MAX_FORM_BYTES = 4096;

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (!/^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? ''))
    throw new AppError('BAD_REQUEST', 'Expected a form');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', 'The form is too large');
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export interface IdentityHttpOptions {
  provider: Provider;
  accounts: LocalAccountsService;
  trustProxy: TrustProxy;
  logger: Logger;
  /** Where a member goes after setting a password. */
  dashboardUrl: string;
  /** The issuer URL browsers reach the provider at: its URLs are built from it, never from a client's Host header. */
  issuer: string;
  /**
   * Browsers reach the provider over https (its issuer URL), through a proxy that ends TLS: every cookie it sets is
   * marked `Secure`, whatever a client's `X-Forwarded-*` headers claim.
   */
  servedOverHttps: boolean;
}

/**
 * The embedded provider's HTTP: our sign-in and set-password pages, then oidc-provider for its own
 * endpoints (discovery, authorization, token, JWKS, revocation, end session).
 */
export function identityHandler(opts: IdentityHttpOptions) {
  const providerCallback = opts.provider.callback();
  // Forms post back here, and a finished sign-in redirects to the dashboard: both origins may receive a form.
  const csp = (extraFormTargets: string) =>
    `default-src 'none'; style-src 'self'; form-action 'self' ${extraFormTargets}; frame-ancestors 'none'; base-uri 'none'`;
  const dashboardOrigin = new URL(opts.dashboardUrl).origin;

  function html(res: ServerResponse, status: number, body: string) {
    res.writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp(dashboardOrigin),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    res.end(body);
  }

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined) {
    const details = await opts.provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new AppError('BAD_REQUEST', 'This sign-in is not the current one');
    const formAction = `/interaction/${encodeURIComponent(uid)}/login`;
    if (details.prompt.name !== 'login') {
      // Consent of the first-party dashboard is given by loadExistingGrant; anything else ends here.
      return opts.provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'Unsupported prompt' },
        { mergeWithLastSubmission: false },
      );
    }
    if (req.method === 'GET' && !action) return html(res, 200, signInPage({ action: formAction }));
    if (req.method === 'POST' && action === 'login') {
      const form = await readForm(req);
      const email = form.get('email') ?? '';
      const outcome = await opts.accounts.signIn(
        email,
        form.get('password') ?? '',
        clientAddress(req, opts.trustProxy),
        devicesOf(req),
      );
      if (!outcome.ok) {
        const throttled = outcome.reason === 'throttled';
        const error = throttled ? 'Too many failed sign-ins: try again later.' : 'Wrong e-mail or password.';
        return html(res, throttled ? 429 : 401, signInPage({ action: formAction, email, error }));
      }
      res.setHeader('set-cookie', deviceCookie(outcome.devices));
      return opts.provider.interactionFinished(
        req,
        res,
        { login: { accountId: outcome.subject } },
        { mergeWithLastSubmission: false },
      );
    }
    throw new AppError('NOT_FOUND', 'Unknown page');
  }

  // Under https the cookie is host-only and secure (`__Host-`): no other host of the domain can set one in its place.
  const deviceCookieName = opts.servedOverHttps ? `__Host-${DEVICE_COOKIE}` : DEVICE_COOKIE;
  // Every value of the name: one tossed in by another host of the domain comes first, the member's own after it.
  const devicesOf = (req: IncomingMessage) => cookieValues(req.headers.cookie, deviceCookieName).join('~');
  const deviceCookie = (devices: string) =>
    `${deviceCookieName}=${devices}; Path=/; Max-Age=${DEVICE_COOKIE_DAYS * 86_400}; HttpOnly; SameSite=Lax` +
    (opts.servedOverHttps ? '; Secure' : '');
  const issuerHost = new URL(opts.issuer).host;

  /** A sign-in start is stored by the provider: a long one is refused, and an address starts a bounded number. */
  async function signInMayStart(req: IncomingMessage, res: ServerResponse, target: string): Promise<boolean> {
    if (target.length > MAX_AUTHORIZATION_REQUEST) {
      html(res, 414, messagePage('Sign-in', 'This sign-in link is too long. Start again from the dashboard.'));
      return false;
    }
    if (await opts.accounts.mayStartSignIn(clientAddress(req, opts.trustProxy))) return true;
    html(res, 429, messagePage('Sign-in', 'Too many sign-ins started from your network: try again later.'));
    return false;
  }

  async function setPassword(req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
    const minLength = PASSWORD_MIN_LENGTH;
    if (req.method === 'GET') {
      const token = query.get('token') ?? '';
      const email = await opts.accounts.setPasswordTokenEmail(token);
      if (!email)
        return html(
          res,
          404,
          messagePage(
            'Link not valid',
            'This link was used already, has expired or is mistyped. Ask an admin for a new one.',
          ),
        );
      return html(res, 200, setPasswordPage({ token, email, minLength }));
    }
    if (req.method !== 'POST') throw new AppError('NOT_FOUND', 'Unknown page');
    const form = await readForm(req);
    const token = form.get('token') ?? '';
    try {
      // The browser that used the link is one its account signed in from (the member proved they hold the address).
      const { devices } = await opts.accounts.setPassword(token, form.get('password') ?? '', devicesOf(req));
      res.setHeader('set-cookie', deviceCookie(devices));
    } catch (err) {
      if (err instanceof AppError && err.code === 'BAD_USER_INPUT') {
        const email = await opts.accounts.setPasswordTokenEmail(token);
        if (email) return html(res, 400, setPasswordPage({ token, email, minLength, error: err.message }));
      }
      throw err;
    }
    return html(
      res,
      200,
      messagePage('Password set', 'You can sign in to the organisation dashboard now.', {
        href: opts.dashboardUrl,
        text: 'Open the dashboard',
      }),
    );
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    // oidc-provider (Koa) builds its URLs from the request's host and, with `proxy` on, the scheme of this header.
    req.headers.host = issuerHost;
    delete req.headers['x-forwarded-host'];
    if (opts.servedOverHttps) req.headers['x-forwarded-proto'] = 'https';
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const pathname = queryAt < 0 ? target : target.slice(0, queryAt);
    const query = new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1));
    if (pathname === '/health' || pathname === '/health/ready') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (pathname === STYLESHEET_PATH) {
      res
        .writeHead(200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=3600' })
        .end(STYLESHEET);
      return;
    }
    const interactionPath = /^\/interaction\/([\w-]{1,100})(?:\/(login))?$/.exec(pathname);
    if (interactionPath) return interaction(req, res, interactionPath[1], interactionPath[2]);
    if (pathname === '/set-password') return setPassword(req, res, query);
    if (pathname === '/auth' && !(await signInMayStart(req, res, target))) return;
    // oidc-provider's own pages (the sign-out question) get our pages' policy: no other site may frame them.
    res.setHeader('content-security-policy', csp(dashboardOrigin));
    res.setHeader('x-frame-options', 'DENY');
    return providerCallback(req, res);
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err) => {
      if (res.headersSent) return res.destroy();
      if (err instanceof AppError && err.status < 500)
        return html(res, err.status, messagePage('Sign-in', err.message));
      // oidc-provider's own errors (an expired interaction: SessionNotFound) carry their status.
      const status = (err as { statusCode?: number }).statusCode;
      if (status && status < 500)
        return html(
          res,
          status,
          messagePage('Sign-in', 'This sign-in has expired. Start again from the dashboard.', {
            href: opts.dashboardUrl,
            text: 'Open the dashboard',
          }),
        );
      opts.logger.error({ err }, 'identity request failed');
      html(res, 500, messagePage('Sign-in', 'Something went wrong. Try again.'));
    });
  };
}
