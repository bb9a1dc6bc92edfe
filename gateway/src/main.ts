import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer, ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import {
  checks,
  clientAddress,
  compileTrustProxy,
  config,
  Config,
  connectRedis,
  createLogger,
  DEFAULT_TRUST_PROXY,
  listenForKeyChanges,
  operatorEndpoint,
  photoStatusChannel,
  RateLimiter,
  requirePrincipalSecret,
  ServiceMetrics,
  SubgraphName,
  TokenVerifier,
  videoStatusChannel,
  stopOnSignals,
} from '@em/core';
import {
  openDatabase,
  Orm,
  SqlAccountsRepository,
  SqlApiKeysRepository,
  SqlMembershipsRepository,
} from '@em/core/data';
import express from 'express';
import { linkAccount } from './auth/account-directory';
import { Supergraph } from '@apollo/federation-internals';
import { GraphQLSchema, printSchema } from 'graphql';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { ApiKeyLookup } from './auth/api-key-cache';
import { Authenticator } from './auth/authenticator';
import { FailedAuthThrottle } from './auth/failed-auth-throttle';
import { graphqlBodyErrors } from './body-errors';
import { OperationLimiter, operationLimitsOf } from './operations/operation-limits';
import { requestContext, RequestContextDeps } from './request-context';
import { GatewayContext } from './context';
import { PrincipalForwardingDataSource } from './data-source';
import { formatGatewayError } from './errors';
import { FaceSearchRetries, storedFaceSearchCheck } from './face-search-retries';
import { clipStatusSchema } from './subscriptions/clip-status-subscription';
import { authoriseByQuery, eventFeedStream, FEED_GUARDS } from './subscriptions/event-feed-subscription';
import { RedisChannelFeed } from './subscriptions/redis-channel-feed';
import { currentClipStatusFromMedia } from './subscriptions/current-clip-status';
import { serveSubscriptions } from './subscriptions/server';
import { EXAMPLE_OPERATIONS, landingPage } from './landing-page';
import { rateLimitPlugin } from './rate-limit-plugin';
import { SubgraphFetcher } from './subgraph-fetcher';
import { subgraphQuery, SubgraphQuery } from './subgraph-query';
import { singleFetchPath } from './fast-path/single-fetch-path';
import { SingleFetchPlans } from './fast-path/single-fetch-plans';
import { uploadAuthorizer } from './uploads/authorize-uploads';
import { closeRefusedUploads } from './uploads/close-refused-uploads';
import { uploadAwareFetch } from './uploads/upload-relay';
import { graphqlUploadExpress } from 'graphql-upload-minimal';
import type { Redis } from 'ioredis';
import { operationObserver } from '@em/subgraph-kit';

const logger = createLogger('gateway');

/** The caller's principal as the subgraphs get it: signed with the shared secret, short-lived. */
type PrincipalSigning = { secret: string; ttlSeconds: number };

async function main() {
  const cfg = config();
  const signing = { secret: requirePrincipalSecret(cfg, 'gateway'), ttlSeconds: cfg.PRINCIPAL_TTL_SECONDS };
  const orm = await openDatabase(cfg);
  const redis = connectRedis(cfg.REDIS_URL, { failFast: true });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis unavailable'));
  const metrics = new ServiceMetrics('gateway');
  const subgraphs = new SubgraphFetcher();
  const askSubgraph = subgraphQuery((url, init) => subgraphs.request(url, init));
  const { keys, authenticator, failedAuth } = authentication(cfg, orm, redis, signing.secret);
  const supergraphSdl = readFileSync(cfg.SUPERGRAPH_PATH, 'utf8');
  const apiSchema = Supergraph.build(supergraphSdl).apiSchema().toGraphQLJSSchema();
  const operations = new OperationLimiter(apiSchema, operationLimitsOf(cfg));
  const limiter = rateLimiter(cfg, redis);
  const retries = new FaceSearchRetries(storedFaceSearchCheck(askSubgraph, cfg.subgraphUrls.search));
  const apollo = await startApollo(cfg, supergraphSdl, subgraphs, [rateLimitPlugin(limiter, retries), metrics]);
  const authorizeUploads = uploadAuthorizer(cfg.subgraphUrls.events, (url, init) => subgraphs.request(url, init));
  const context = { authenticator, failedAuth, operations, limiter, principal: signing, logger, authorizeUploads };
  const feed = new RedisChannelFeed(cfg.REDIS_URL, logger);
  const subscriptionSchema = clipStatusSchema(clipStatusOf(askSubgraph, cfg, signing), feed, {
    photoStatus: eventFeedStream(
      'photoStatus',
      photoStatusChannel,
      authoriseByQuery(askSubgraph, cfg.subgraphUrls.images, FEED_GUARDS.photoStatus, signing),
      feed,
    ),
    videoStatus: eventFeedStream(
      'videoStatus',
      videoStatusChannel,
      authoriseByQuery(askSubgraph, cfg.subgraphUrls.media, FEED_GUARDS.videoStatus, signing),
      feed,
    ),
  });
  const trustProxy = compileTrustProxy(cfg.TRUST_PROXY ?? DEFAULT_TRUST_PROXY.gateway);
  const app = expressApp(cfg, { apollo, context, trustProxy, metrics, apiSchema, subscriptionSchema, orm, redis });
  const plans = SingleFetchPlans.fromSupergraphSdl(supergraphSdl, operations);
  const server = await listen(cfg, { app, context, plans, subgraphs, trustProxy, metrics });
  const clientAddressOf = (request: IncomingMessage) => clientAddress(request, trustProxy);
  const subscriptions = serveSubscriptions(server, subscriptionSchema, {
    ...context,
    clientAddress: clientAddressOf,
    maxMessageBytes: cfg.GRAPHQL_MAX_BODY_BYTES,
  });
  const keyChanges = followKeyChanges(cfg, keys, subscriptions);
  stopOnSignals(logger, async () => {
    await subscriptions.close();
    keyChanges.close();
    feed.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await apollo.stop();
    await subgraphs.close();
    redis.disconnect();
    await orm.close();
  });
}

/** Who calls: API keys (cached) and bearer tokens linked to accounts, failed attempts throttled per address. */
function authentication(cfg: Config, orm: Orm, redis: Redis, visitorIdSecret: string) {
  const verifier = new TokenVerifier(cfg);
  const keys = new ApiKeyLookup(new SqlApiKeysRepository(() => orm.em.fork()), cfg.API_KEY_CACHE_SECONDS);
  const authenticator = new Authenticator(
    keys,
    {
      verify: (token) => verifier.verify(token),
      link: (claims) => {
        const em = orm.em.fork();
        return linkAccount(
          { accounts: new SqlAccountsRepository(() => em), memberships: new SqlMembershipsRepository(() => em) },
          claims,
        );
      },
    },
    visitorIdSecret,
  );
  const failedAuth = new FailedAuthThrottle(redis, cfg, (err) =>
    logger.warn({ err: (err as Error).message }, 'failed-auth throttle unavailable; letting calls through'),
  );
  return { keys, authenticator, failedAuth };
}

/** Per-credential budgets in Redis; when Redis fails, calls go through rather than fail. */
function rateLimiter(cfg: Config, redis: Redis) {
  return new RateLimiter(redis, cfg, (err) =>
    logger.warn({ err: (err as Error).message }, 'rate limiter unavailable; letting calls through'),
  );
}

/** Apollo Gateway over the supergraph, calling subgraphs with the caller's signed principal (files included). */
async function startApollo(
  cfg: Config,
  supergraphSdl: string,
  subgraphs: SubgraphFetcher,
  [rateLimits, metrics]: [ApolloServerPlugin<GatewayContext>, ServiceMetrics],
): Promise<ApolloServer<GatewayContext>> {
  // No metrics to Apollo and no cloud metadata probes at start: a self-hosted platform reports to its own /metrics
  // (and the bundle leaves those modules out, see scripts/platform/bundle-service.mjs).
  process.env.APOLLO_TELEMETRY_DISABLED = 'true';
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
    plugins: [ApolloServerPluginLandingPageDisabled(), rateLimits, operationObserver(metrics, logger)],
  });
  await apollo.start();
  return apollo;
}

/** The subscription's first answer comes from the media subgraph, which owns the clipping requests. */
function clipStatusOf(askSubgraph: SubgraphQuery, cfg: Config, signing: PrincipalSigning) {
  return currentClipStatusFromMedia(askSubgraph, cfg.subgraphUrls.media, signing);
}

interface ExpressParts {
  apollo: ApolloServer<GatewayContext>;
  context: RequestContextDeps;
  trustProxy: ReturnType<typeof compileTrustProxy>;
  metrics: ServiceMetrics;
  apiSchema: GraphQLSchema;
  subscriptionSchema: GraphQLSchema;
  orm: Orm;
  redis: Redis;
}

/** Health and metrics, the offline sandbox and SDLs for browsers, then `/graphql` through Apollo. */
function expressApp(cfg: Config, parts: ExpressParts) {
  const { apollo, context, trustProxy, metrics, apiSchema, subscriptionSchema, orm, redis } = parts;
  const app = express();
  app.disable('x-powered-by');
  // Answers are per caller and never revalidated: no ETag hash over every body.
  app.set('etag', false);
  app.set('trust proxy', trustProxy);
  app.get(['/health', '/health/live', '/health/ready', '/metrics'], async (req, res) => {
    const answer = (await operatorEndpoint(req.path, metrics, [checks.postgres(orm), checks.redis(redis)]))!;
    res.status(answer.status).type(answer.contentType).send(answer.body);
  });
  // Browsers get a small offline sandbox and the SDLs; API calls go on to Apollo below.
  const apiSdl = printSchema(apiSchema);
  const subscriptionSdl = printSchema(subscriptionSchema);
  app.get('/graphql/schema.graphql', (_req, res) => void res.type('text/plain').send(apiSdl));
  app.get('/graphql/subscriptions.graphql', (_req, res) => void res.type('text/plain').send(subscriptionSdl));
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
    expressMiddleware(apollo, { context: requestContext(context) }),
    graphqlBodyErrors(cfg.GRAPHQL_MAX_BODY_BYTES),
  );
  return app;
}

interface ListenParts {
  app: express.Express;
  context: RequestContextDeps;
  plans: SingleFetchPlans;
  subgraphs: SubgraphFetcher;
  trustProxy: ReturnType<typeof compileTrustProxy>;
  metrics: ServiceMetrics;
}

/** The HTTP server: queries answered by one subgraph skip Apollo's pipeline (fast-path/), the rest reach express. */
async function listen(cfg: Config, { app, context, plans, subgraphs, trustProxy, metrics }: ListenParts) {
  const fastPath = {
    context,
    plans,
    subgraphUrls: cfg.subgraphUrls,
    subgraphs,
    trustProxy,
    metrics,
    logger,
    bodyLimitBytes: cfg.GRAPHQL_MAX_BODY_BYTES,
  };
  const server: Server = createServer(singleFetchPath(fastPath, app));
  metrics.countRequestBodies(server);
  server.listen(cfg.GATEWAY_PORT, cfg.LISTEN_HOST);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  server.keepAliveTimeout = 65_000;
  logger.info({ port: (server.address() as AddressInfo).port }, 'gateway listening');
  return server;
}

/** Deactivated or deleted keys (announced by the events subgraph and the CLI) stop working at once. */
function followKeyChanges(
  cfg: Config,
  keys: ApiKeyLookup,
  subscriptions: { recheckKey(keyId: number): Promise<void> },
) {
  return listenForKeyChanges(
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
}

main().catch((err) => {
  logger.fatal({ err }, 'failed to start');
  process.exit(1);
});
