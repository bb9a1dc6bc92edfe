import {
  compileTrustProxy,
  config,
  Config,
  connectRedis,
  ContentVersionReader,
  createLogger,
  dashboardUrl,
  DEFAULT_TRUST_PROXY,
  listenForKeyChanges,
  RateLimiter,
  serveOperatorPort,
  ServiceMetrics,
  TrustProxy,
  stopOnSignals,
} from '@em/core';
import type { Duplex } from 'node:stream';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { createRestHandler } from './app';
import { dashboard, dashboardDistDir } from './dashboard/bff';
import { LoginTransactions } from './dashboard/login-transaction';
import { OidcClient } from './dashboard/oidc-client';
import { SessionStore } from './dashboard/session-store';
import { SharedReads } from './http/conditional';
import { ReadGrants } from './http/read-grants';
import { GatewayClient } from './gateway-client';
import { continueOnlyWithCredentials } from './http/expect-continue';
import { webDistDir } from './http/participant-page';
import { PAGE_ROUTES, ROUTES } from './routes';

type Redis = ReturnType<typeof connectRedis>;

const logger = createLogger('rest-adapter');

function main() {
  const cfg = config();
  const gateway = new GatewayClient(cfg.GATEWAY_URL);
  const metrics = new ServiceMetrics('rest-adapter');
  const trustProxy = compileTrustProxy(cfg.TRUST_PROXY ?? DEFAULT_TRUST_PROXY.restAdapter);
  // Fail-fast: while Redis is down, answers go out without an ETag rather than wait for it.
  const versionsRedis = connectRedis(cfg.REDIS_URL, { failFast: true });
  versionsRedis.on('error', () => undefined);
  // Sign-in needs the client secret; without it the dashboard's pages say how to configure it.
  const sessionsRedis = cfg.DASHBOARD_CLIENT_SECRET ? connectRedis(cfg.REDIS_URL) : null;
  const dashboard = organisationDashboard(cfg, sessionsRedis, trustProxy);
  const handler = createRestHandler({
    routes: ROUTES,
    pageRoutes: PAGE_ROUTES,
    gateway,
    bodyLimitBytes: cfg.REST_BODY_LIMIT_BYTES,
    uploadLimits: {
      maxFileBytes: cfg.UPLOAD_MAX_FILE_BYTES,
      maxFiles: cfg.UPLOAD_MAX_FILES,
      selfieMaxBytes: cfg.SELFIE_MAX_BYTES,
    },
    logger,
    version: process.env.npm_package_version ?? '1.0.0',
    metrics,
    trustProxy,
    participantPage: { distDir: webDistDir(), mediaUrl: cfg.MEDIA_URL },
    contentVersions: new ContentVersionReader(versionsRedis),
    sharedReads: new SharedReads(),
    readGrants: readGrants(cfg, versionsRedis),
    dashboard,
  });
  const { server, operator } = listen(cfg, handler, { metrics, gateway });
  // The dashboard's subscriptions (graphql-ws) are the only WebSockets of the public port.
  server.on(
    'upgrade',
    (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void dashboard.upgrade(req, socket, head),
  );
  stopOnSignals(logger, async () => {
    operator.close();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
    await Promise.all([gateway.close(), sessionsRedis?.quit()]).finally(() => versionsRedis.disconnect());
  });
}

/** Revalidations of a key the gateway authorised moments ago, answered here and charged to the same budget. */
function readGrants(cfg: Config, redis: Redis): ReadGrants {
  const grants = new ReadGrants(
    new RateLimiter(redis, cfg, (err) => logger.warn({ err }, 'rate limiter unavailable')),
    cfg.API_KEY_CACHE_SECONDS * 1000,
  );
  // A key deactivated or deleted anywhere (or announcements missed while Redis was away): every grant is asked again.
  const forget = () => grants.forgetAll();
  listenForKeyChanges(cfg.REDIS_URL, { keyChanged: forget, resync: forget }, logger);
  return grants;
}

/** The dashboard and its backend-for-frontend; sign-in only with the client secret (and a session store). */
function organisationDashboard(cfg: Config, sessionsRedis: Redis | null, trustProxy: TrustProxy) {
  const publicUrl = dashboardUrl(cfg);
  const oidc = cfg.DASHBOARD_CLIENT_SECRET
    ? new OidcClient({
        issuer: cfg.OAUTH_ISSUER,
        internalUrl: cfg.OAUTH_ISSUER_INTERNAL_URL,
        clientId: cfg.DASHBOARD_CLIENT_ID,
        clientSecret: cfg.DASHBOARD_CLIENT_SECRET,
        redirectUri: `${publicUrl}callback`,
        postLogoutRedirectUri: `${publicUrl}signed-out`,
        scopes: cfg.DASHBOARD_SCOPES,
      })
    : null;
  return dashboard({
    publicUrl,
    distDir: dashboardDistDir(),
    mediaUrl: cfg.MEDIA_URL,
    storageOrigin: storageOrigin(cfg),
    gatewayUrl: cfg.GATEWAY_URL,
    oidc,
    logins: cfg.DASHBOARD_CLIENT_SECRET ? new LoginTransactions(cfg.DASHBOARD_CLIENT_SECRET) : null,
    sessions: sessionsRedis && new SessionStore(sessionsRedis),
    sessionSeconds: cfg.DASHBOARD_SESSION_SECONDS,
    maxUploadBytes: cfg.UPLOAD_MAX_FILE_BYTES,
    trustProxy,
    logger,
  });
}

/** The origin presigned upload URLs name: the public S3 endpoint, with the bucket as host when not path-style. */
function storageOrigin(cfg: Config): string {
  const endpoint = new URL(cfg.S3_PUBLIC_ENDPOINT ?? cfg.S3_ENDPOINT);
  if (!cfg.S3_FORCE_PATH_STYLE) endpoint.hostname = `${cfg.S3_BUCKET}.${endpoint.hostname}`;
  return endpoint.origin;
}

/** The public port, and /metrics and /health/* on their own port of the internal interface, never on the public one. */
function listen(
  cfg: Config,
  handler: http.RequestListener,
  { metrics, gateway }: { metrics: ServiceMetrics; gateway: GatewayClient },
) {
  const server = http.createServer(handler);
  metrics.countRequestBodies(server);
  server.on('checkContinue', continueOnlyWithCredentials(handler));
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 120_000;
  const operator = serveOperatorPort({
    port: cfg.REST_OPERATOR_PORT,
    host: cfg.LISTEN_HOST,
    metrics,
    checks: [{ name: 'gateway', check: () => gateway.ready() }],
  });
  server.listen(cfg.REST_PORT, cfg.REST_HOST, () => {
    logger.info(
      { port: (server.address() as AddressInfo).port, operatorPort: cfg.REST_OPERATOR_PORT },
      'REST adapter listening',
    );
  });
  for (const s of [server, operator]) {
    s.on('error', (err) => {
      logger.fatal({ err }, 'failed to start');
      process.exit(1);
    });
  }
  return { server, operator };
}

main();
