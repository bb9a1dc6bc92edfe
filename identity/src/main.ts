import {
  compileTrustProxy,
  DEFAULT_TRUST_PROXY,
  config,
  Config,
  connectRedis,
  createLogger,
  dashboardUrl,
  embeddedIdentityIssuer,
  ensureEmbeddedIssuer,
  readPrivateKey,
  stopOnSignals,
} from '@em/core';
import { openDatabase, Orm, SqlAccountsRepository, SqlLocalCredentialsRepository } from '@em/core/data';
import { exportJWK, importPKCS8 } from 'jose';
import http from 'node:http';
import { LocalAccountsService } from './accounts/local-accounts.service';
import { SignInDevices } from './accounts/sign-in-devices';
import { RedisSignInCounters, SignInThrottle } from './accounts/sign-in-throttle';
import { identityHandler } from './http/server';
import { startInvitationMailWorker } from './invitations/invitation-worker';
import { createProvider } from './provider/provider';

const logger = createLogger('identity');

type Redis = ReturnType<typeof connectRedis>;

async function main() {
  const cfg = config();
  if (!cfg.DASHBOARD_CLIENT_SECRET || !cfg.IDENTITY_COOKIE_SECRET) {
    throw new Error(
      'The embedded identity provider needs DASHBOARD_CLIENT_SECRET and IDENTITY_COOKIE_SECRET (npm start sets both)',
    );
  }
  const orm = await openDatabase(cfg);
  const redis = connectRedis(cfg.REDIS_URL);
  const accounts = localAccounts(cfg, orm, redis, cfg.IDENTITY_COOKIE_SECRET);
  const issuer = embeddedIdentityIssuer(cfg);
  const secrets = { client: cfg.DASHBOARD_CLIENT_SECRET, cookie: cfg.IDENTITY_COOKIE_SECRET };
  const provider = await openIdProvider(cfg, { issuer, secrets, accounts, redis });
  const mailWorker = cfg.SMTP_URL
    ? startInvitationMailWorker(cfg, { accounts, redis, issuer, dashboardUrl: dashboardUrl(cfg), logger })
    : null;
  const server = http.createServer(
    identityHandler({
      provider,
      accounts,
      trustProxy: compileTrustProxy(cfg.TRUST_PROXY ?? DEFAULT_TRUST_PROXY.restAdapter),
      logger,
      dashboardUrl: dashboardUrl(cfg),
      issuer,
      servedOverHttps: servedOverHttps(issuer),
    }),
  );
  server.on('error', (err) => {
    logger.fatal({ err }, 'failed to start');
    process.exit(1);
  });
  server.listen(cfg.IDENTITY_PORT, cfg.REST_HOST, () =>
    logger.info({ port: cfg.IDENTITY_PORT, issuer }, 'identity provider listening'),
  );
  stopOnSignals(logger, async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
    await Promise.all([orm.close(), redis.quit(), mailWorker?.close()]);
  });
}

/** Local accounts: scrypt passwords, set-password links, sign-in failures counted in Redis. */
function localAccounts(cfg: Config, orm: Orm, redis: Redis, cookieSecret: string) {
  return new LocalAccountsService(
    new SqlAccountsRepository(() => orm.em.fork()),
    new SqlLocalCredentialsRepository(() => orm.em.fork()),
    new SignInThrottle(new RedisSignInCounters(redis), {
      perAccount: cfg.SIGN_IN_MAX_FAILURES,
      perAddress: cfg.SIGN_IN_MAX_FAILURES_PER_ADDRESS,
      windowSeconds: cfg.SIGN_IN_FAILURE_WINDOW_SECONDS,
      startsPerAddress: cfg.SIGN_IN_STARTS_PER_ADDRESS,
    }),
    new SignInDevices(cookieSecret),
    { setPasswordLinkHours: cfg.SET_PASSWORD_LINK_HOURS },
  );
}

/** The OpenID provider with the dashboard as its one client. */
async function openIdProvider(
  cfg: Config,
  parts: { issuer: string; secrets: { client: string; cookie: string }; accounts: LocalAccountsService; redis: Redis },
) {
  const { issuer, secrets, accounts, redis } = parts;
  // The embedded issuer's key, made once (npm start makes it first; compose's volume starts empty). The gateway
  // verifies with its public half: the file (npm start) or this provider's /jwks (compose).
  const privateKey = await importPKCS8(readPrivateKey(await ensureEmbeddedIssuer(cfg.DATA_DIR)), 'RS256', {
    extractable: true,
  });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'embedded-1', alg: 'RS256', use: 'sig' };
  const dashboard = dashboardUrl(cfg);
  return createProvider({
    issuer,
    audience: cfg.OAUTH_AUDIENCE,
    signingKey,
    cookieSecret: secrets.cookie,
    dashboard: {
      clientId: cfg.DASHBOARD_CLIENT_ID,
      clientSecret: secrets.client,
      redirectUri: `${dashboard}callback`,
      postLogoutRedirectUri: `${dashboard}signed-out`,
    },
    accounts,
    redis,
    accessTokenSeconds: 3600,
    servedOverHttps: servedOverHttps(issuer),
  });
}

/** Browsers reach the provider at its issuer URL: an https one is served through a proxy that ends TLS. */
const servedOverHttps = (issuer: string) => issuer.startsWith('https:');

main().catch((err) => {
  logger.fatal({ err }, 'identity provider failed to start');
  process.exit(1);
});
