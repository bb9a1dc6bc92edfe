import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import {
  checks,
  clientAddress,
  compileTrustProxy,
  config,
  connectRedis,
  createLogger,
  DEFAULT_TRUST_PROXY,
  listenForKeyChanges,
  operatorEndpoint,
  RateLimiter,
  requirePrincipalSecret,
  ServiceMetrics,
  SubgraphName,
  TokenVerifier,
} from '@em/core';
import {
  linkAccount,
  openDatabase,
  SqlAccountsRepository,
  SqlApiKeysRepository,
  SqlClipRequestsRepository,
  SqlEventsRepository,
  SqlFaceSearchesRepository,
  SqlMembershipsRepository,
} from '@em/core/data';
import express from 'express';
import { Supergraph } from '@apollo/federation-internals';
import { printSchema } from 'graphql';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { ApiKeyLookup } from './auth/api-key-cache';
import { Authenticator } from './auth/authenticator';
import { FailedAuthThrottle } from './auth/failed-auth-throttle';
import { graphqlBodyErrors } from './body-errors';
import { OperationLimiter, operationLimitsOf } from './operations/operation-limits';
import { requestContext } from './request-context';
import { GatewayContext } from './context';
import { PrincipalForwardingDataSource } from './data-source';
import { formatGatewayError } from './errors';
import { FaceSearchRetries } from './face-search-retries';
import { ClipStatusFeed } from './subscriptions/clip-status-feed';
import { clipStatusSchema } from './subscriptions/clip-status-subscription';
import { serveSubscriptions } from './subscriptions/server';
import { EXAMPLE_OPERATIONS, landingPage } from './landing-page';
import { rateLimitPlugin } from './rate-limit-plugin';
import { SubgraphFetcher } from './subgraph-fetcher';
import { singleFetchPath } from './fast-path/single-fetch-path';
import { SingleFetchPlans } from './fast-path/single-fetch-plans';
import { uploadAuthorizer } from './uploads/authorize-uploads';
import { closeRefusedUploads } from './uploads/close-refused-uploads';
import { uploadAwareFetch } from './uploads/upload-relay';
import { graphqlUploadExpress } from 'graphql-upload-minimal';
import { operationObserver } from '@em/subgraph-kit';

const logger = createLogger('gateway');

async function main() {
  const cfg = config();
  const principalSecret = requirePrincipalSecret(cfg, 'gateway');
  const orm = await openDatabase(cfg);
  const redis = connectRedis(cfg.REDIS_URL, { failFast: true });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis unavailable'));
  const limiter = new RateLimiter(redis, cfg, (err) =>
    logger.warn({ err: (err as Error).message }, 'rate limiter unavailable; letting calls through'),
  );
  const verifier = new TokenVerifier(cfg);
  const metrics = new ServiceMetrics('gateway');
  const feed = new ClipStatusFeed(cfg.REDIS_URL, logger);
  const keys = new ApiKeyLookup(new SqlApiKeysRepository(() => orm.em.fork()), cfg.API_KEY_CACHE_SECONDS);
  const authenticator = new Authenticator(keys, {
    verify: (token) => verifier.verify(token),
    link: (claims) => {
      const em = orm.em.fork();
      return linkAccount(
        { accounts: new SqlAccountsRepository(() => em), memberships: new SqlMembershipsRepository(() => em) },
        claims,
      );
    },
  });
  const failedAuth = new FailedAuthThrottle(redis, cfg, (err) =>
    logger.warn({ err: (err as Error).message }, 'failed-auth throttle unavailable; letting calls through'),
  );
  const supergraphSdl = readFileSync(cfg.SUPERGRAPH_PATH, 'utf8');
  const apiSchema = Supergraph.build(supergraphSdl).apiSchema().toGraphQLJSSchema();
  const operations = new OperationLimiter(apiSchema, operationLimitsOf(cfg));

  const subgraphs = new SubgraphFetcher();
  const gateway = new ApolloGateway({
    supergraphSdl,
    buildService: ({ name }) =>
      new PrincipalForwardingDataSource({
        url: cfg.subgraphUrls[name as SubgraphName],
        fetcher: ((url: string, init: { body?: unknown; headers?: Record<string, string> }) =>
          uploadAwareFetch(init, url, subgraphs.fetch)) as never,
      }),
  });
  const apollo = new ApolloServer<GatewayContext>({
    gateway,
    formatError: formatGatewayError(logger),
    introspection: true,
    csrfPrevention: false,
    stopOnTerminationSignals: false,
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      rateLimitPlugin(limiter, new FaceSearchRetries(new SqlFaceSearchesRepository(orm))),
      operationObserver(metrics, logger),
    ],
  });
  await apollo.start();

  const authorizeUploads = uploadAuthorizer(cfg.subgraphUrls.events, (url, init) => subgraphs.request(url, init));
  const principal = { secret: principalSecret, ttlSeconds: cfg.PRINCIPAL_TTL_SECONDS };
  const contextDeps = { authenticator, failedAuth, operations, limiter, principal, logger, authorizeUploads };
  const app = express();
  app.disable('x-powered-by');
  // Answers are per caller and never revalidated: no ETag hash over every body.
  app.set('etag', false);
  const trustProxy = compileTrustProxy(cfg.TRUST_PROXY ?? DEFAULT_TRUST_PROXY.gateway);
  app.set('trust proxy', trustProxy);
  app.get(['/health', '/health/live', '/health/ready', '/metrics'], async (req, res) => {
    const answer = (await operatorEndpoint(req.path, metrics, [checks.postgres(orm), checks.redis(redis)]))!;
    res.status(answer.status).type(answer.contentType).send(answer.body);
  });
  // Browsers get a small offline sandbox and the SDLs; API calls go on to Apollo below.
  const apiSdl = printSchema(apiSchema);
  const subscriptionSchema = clipStatusSchema(new SqlEventsRepository(orm), new SqlClipRequestsRepository(orm), feed);
  app.get('/graphql/schema.graphql', (_req, res) => void res.type('text/plain').send(apiSdl));
  app.get(
    '/graphql/subscriptions.graphql',
    (_req, res) => void res.type('text/plain').send(printSchema(subscriptionSchema)),
  );
  app.get('/graphql', (req, res, next) =>
    req.accepts(['application/json', 'text/html']) === 'text/html'
      ? void res.type('html').send(landingPage(EXAMPLE_OPERATIONS))
      : next(),
  );
  app.use(
    '/graphql',
    express.json({ limit: cfg.GRAPHQL_MAX_BODY_BYTES }),
    closeRefusedUploads,
    graphqlUploadExpress({
      maxFileSize: cfg.UPLOAD_MAX_FILE_BYTES,
      maxFiles: cfg.UPLOAD_MAX_FILES,
      maxFieldSize: cfg.GRAPHQL_MAX_BODY_BYTES,
    }),
    expressMiddleware(apollo, { context: requestContext(contextDeps) }),
    graphqlBodyErrors(cfg.GRAPHQL_MAX_BODY_BYTES),
  );

  // Queries answered by one subgraph skip Apollo's pipeline (fast-path/); everything else reaches express and Apollo.
  const plans = SingleFetchPlans.fromSupergraphSdl(supergraphSdl, operations);
  const fastPath = {
    context: contextDeps,
    plans,
    subgraphUrls: cfg.subgraphUrls,
    subgraphs,
    trustProxy,
    metrics,
    logger,
    bodyLimitBytes: cfg.GRAPHQL_MAX_BODY_BYTES,
  };
  const server = createServer(singleFetchPath(fastPath, app)).listen(cfg.GATEWAY_PORT, cfg.LISTEN_HOST);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  server.keepAliveTimeout = 65_000;
  const clientAddressOf = (request: IncomingMessage) => clientAddress(request, trustProxy);
  const subscriptions = serveSubscriptions(server, subscriptionSchema, {
    clientAddress: clientAddressOf,
    authenticator,
    failedAuth,
    operations,
    logger,
  });
  // Deactivated or deleted keys (announced by the events subgraph and the CLI) stop working at once.
  const keyChanges = listenForKeyChanges(
    cfg.REDIS_URL,
    {
      keyChanged: (keyId) => {
        keys.invalidate(keyId);
        void subscriptions.recheckKey(keyId);
      },
      resync: () => keys.invalidateAll(),
    },
    logger,
  );
  logger.info({ port: (server.address() as AddressInfo).port }, 'gateway listening');

  const shutdown = async () => {
    await subscriptions.close();
    keyChanges.close();
    feed.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await apollo.stop();
    await subgraphs.close();
    redis.disconnect();
    await orm.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
}

main().catch((err) => {
  logger.fatal({ err }, 'failed to start');
  process.exit(1);
});
