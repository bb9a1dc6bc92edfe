import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import {
  AppError,
  checks,
  compileTrustProxy,
  config,
  connectRedis,
  createLogger,
  hostFromUrlHeader,
  linkAccount,
  newId,
  openDatabase,
  operatorEndpoint,
  RateLimiter,
  requirePrincipalSecret,
  ServiceMetrics,
  signPrincipal,
  SubgraphName,
  TokenVerifier,
} from '@em/core';
import express from 'express';
import { Supergraph } from '@apollo/federation-internals';
import { GraphQLError, printSchema } from 'graphql';
import { readFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { ApiKeyLookup } from './auth/api-key-cache';
import { Authenticator } from './auth/authenticator';
import { GatewayContext } from './context';
import { PrincipalForwardingDataSource } from './data-source';
import { formatGatewayError } from './errors';
import { FaceSearchRetries } from './face-search-retries';
import { ClipStatusFeed } from './subscriptions/clip-status-feed';
import { clipStatusSchema } from './subscriptions/clip-status-subscription';
import { serveSubscriptions } from './subscriptions/server';
import { EXAMPLE_OPERATIONS, landingPage } from './landing-page';
import { containsNul } from './nul-characters';
import { rateLimitPlugin } from './rate-limit-plugin';
import { uploadAwareFetch } from './uploads';
import { graphqlUploadExpress } from 'graphql-upload-minimal';
import { operationObserver } from '@em/subgraph-kit';

const logger = createLogger('gateway');

async function main() {
  const cfg = config();
  const principalSecret = requirePrincipalSecret(cfg, 'gateway');
  const orm = await openDatabase(cfg);
  const redis = connectRedis(cfg.REDIS_URL, { failFast: true });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis unavailable'));
  const limiter = new RateLimiter(redis, cfg, (err) => logger.warn({ err: (err as Error).message }, 'rate limiter unavailable; letting calls through'));
  const verifier = new TokenVerifier(cfg);
  const metrics = new ServiceMetrics('gateway');
  const feed = new ClipStatusFeed(cfg.REDIS_URL, logger);
  const authenticator = new Authenticator(new ApiKeyLookup(orm, cfg.API_KEY_CACHE_SECONDS), {
    verify: (token) => verifier.verify(token),
    link: (claims) => linkAccount(orm.em.fork(), claims),
  });

  const gateway = new ApolloGateway({
    supergraphSdl: readFileSync(cfg.SUPERGRAPH_PATH, 'utf8'),
    buildService: ({ name }) =>
      new PrincipalForwardingDataSource({
        url: cfg.subgraphUrls[name as SubgraphName],
        fetcher: ((url: string, init: { body?: unknown; headers?: Record<string, string> }) => uploadAwareFetch(init, url)) as never,
      }),
  });
  const apollo = new ApolloServer<GatewayContext>({
    gateway,
    formatError: formatGatewayError(logger),
    introspection: true,
    csrfPrevention: false,
    stopOnTerminationSignals: false,
    plugins: [ApolloServerPluginLandingPageDisabled(), rateLimitPlugin(limiter, new FaceSearchRetries(orm)), operationObserver(metrics, logger)],
  });
  await apollo.start();

  const app = express();
  app.disable('x-powered-by');
  const trustProxy = compileTrustProxy(cfg.TRUST_PROXY);
  app.set('trust proxy', trustProxy);
  app.get(['/health', '/health/live', '/health/ready', '/metrics'], async (req, res) => {
    const answer = (await operatorEndpoint(req.path, metrics, [checks.postgres(orm), checks.redis(redis)]))!;
    res.status(answer.status).type(answer.contentType).send(answer.body);
  });
  // Browsers get a small offline sandbox and the SDLs; API calls go on to Apollo below.
  const apiSdl = printSchema(Supergraph.build(readFileSync(cfg.SUPERGRAPH_PATH, 'utf8')).apiSchema().toGraphQLJSSchema());
  const subscriptionSchema = clipStatusSchema(orm, feed);
  app.get('/graphql/schema.graphql', (_req, res) => void res.type('text/plain').send(apiSdl));
  app.get('/graphql/subscriptions.graphql', (_req, res) => void res.type('text/plain').send(printSchema(subscriptionSchema)));
  app.get('/graphql', (req, res, next) => (req.accepts(['application/json', 'text/html']) === 'text/html' ? void res.type('html').send(landingPage(EXAMPLE_OPERATIONS)) : next()));
  app.use(
    '/graphql',
    express.json({ limit: '2mb' }),
    graphqlUploadExpress({ maxFileSize: cfg.UPLOAD_MAX_FILE_BYTES, maxFiles: cfg.UPLOAD_MAX_FILES }),
    expressMiddleware(apollo, {
      context: async ({ req }) => {
        const requestId = req.header('x-request-id') || newId();
        try {
          const { principal, rateSubject, readLimit } = await authenticator.authenticate(
            { apiKey: req.header('x-api-key'), authorization: req.header('authorization') },
            { originHost: hostFromUrlHeader(req.header('origin')) ?? hostFromUrlHeader(req.header('referer')), clientIp: req.ip ?? null },
            requestId,
          );
          // Postgres cannot hold a NUL character: refused once here rather than failing in a subgraph.
          if (containsNul(req.body)) throw new AppError('BAD_REQUEST', 'The request contains a NUL character, which no field accepts');
          const principalToken = signPrincipal(principal, principalSecret, cfg.PRINCIPAL_TTL_SECONDS);
          return { principal, principalToken, requestId, rateSubject, readLimit };
        } catch (err) {
          if (err instanceof AppError) throw new GraphQLError(err.message, { extensions: { code: err.code, http: { status: err.status } } });
          logger.error({ err }, 'authentication failed unexpectedly');
          throw new GraphQLError('The service is temporarily unavailable', { extensions: { code: 'UNAVAILABLE', http: { status: 503 } } });
        }
      },
    }),
  );

  const server = app.listen(cfg.GATEWAY_PORT, cfg.LISTEN_HOST);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  server.keepAliveTimeout = 65_000;
  const subscriptions = serveSubscriptions(server, subscriptionSchema, authenticator, logger, trustProxy);
  logger.info({ port: (server.address() as AddressInfo).port }, 'gateway listening');

  const shutdown = async () => {
    await subscriptions.close();
    feed.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await apollo.stop();
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
