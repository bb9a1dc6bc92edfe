import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
} from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import {
  AppError,
  checks,
  DependencyCheck,
  Logger,
  operatorEndpoint,
  PRINCIPAL_HEADER,
  ServiceMetrics,
  verifyPrincipal,
} from '@em/core';
import { Orm } from '@em/core/data';
import { RequestContext } from '@mikro-orm/core';
import express from 'express';
import { graphqlUploadExpress } from 'graphql-upload-minimal';
import { GraphQLError, GraphQLSchema } from 'graphql';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { compiledEndpoint, JSON_BODY_LIMIT_BYTES } from './compiled-endpoint';
import { CompiledOperations } from './compiled-operations';
import { SubgraphContext } from './context';
import { formatSubgraphError } from './errors';
import { operationObserver } from './operation-observer';

export interface SubgraphServerOptions {
  name: string;
  schema: GraphQLSchema;
  port: number;
  orm: Orm;
  principalSecret: string;
  logger: Logger;
  /** Interface to listen on (LISTEN_HOST). */
  host?: string;
  uploadMaxFileBytes?: number;
  uploadMaxFiles?: number;
  /** Dependencies besides Postgres that readiness checks (Redis, S3). */
  checks?: DependencyCheck[];
}

export interface RunningSubgraph {
  url: string;
  stop(): Promise<void>;
}

/**
 * Serves a subgraph at /graphql. Every operation must carry the gateway's signed principal
 * (401 otherwise), runs in its own MikroORM request context, and reports errors with core's codes.
 */
export async function startSubgraphServer(opts: SubgraphServerOptions): Promise<RunningSubgraph> {
  const metrics = new ServiceMetrics(opts.name);
  const dependencies = [checks.postgres(opts.orm), ...(opts.checks ?? [])];
  const apollo = new ApolloServer<SubgraphContext>({
    schema: opts.schema,
    formatError: formatSubgraphError(opts.logger),
    introspection: true,
    csrfPrevention: false,
    // The service's own shutdown (runService) stops the server; Apollo must not take the signals.
    stopOnTerminationSignals: false,
    // Per-field cache hints and traces are not used: they cost CPU on every field of every page.
    plugins: [
      ApolloServerPluginInlineTraceDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      operationObserver(metrics, opts.logger),
    ],
  });
  await apollo.start();

  const app = express();
  app.disable('x-powered-by');
  // Answers are per caller and never revalidated: no ETag hash over every body.
  app.set('etag', false);
  app.get(['/health', '/health/live', '/health/ready', '/metrics'], async (req, res) => {
    const answer = (await operatorEndpoint(req.path, metrics, dependencies))!;
    res.status(answer.status).type(answer.contentType).send(answer.body);
  });
  app.use('/graphql', (_req, _res, next) => RequestContext.create(opts.orm.em, next));
  app.use(
    '/graphql',
    express.json({ limit: JSON_BODY_LIMIT_BYTES }),
    graphqlUploadExpress({
      maxFileSize: opts.uploadMaxFileBytes ?? 50 * 1024 * 1024,
      maxFiles: opts.uploadMaxFiles ?? 100,
    }),
    expressMiddleware(apollo, {
      context: async ({ req }) => {
        try {
          const principal = verifyPrincipal(req.header(PRINCIPAL_HEADER), opts.principalSecret);
          return { principal, requestId: req.header('x-request-id') ?? principal.requestId ?? '' };
        } catch (err) {
          const message = err instanceof AppError ? err.message : 'Unauthenticated';
          throw new GraphQLError(message, { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });
        }
      },
    }),
  );

  // Queries run compiled (graphql-jit) ahead of express and Apollo; everything else falls through to them.
  const operations = new CompiledOperations(opts.schema, formatSubgraphError(opts.logger));
  const inRequestContext = <T>(run: () => T) => RequestContext.create(opts.orm.em, run);
  const server: Server = createServer(
    compiledEndpoint(
      { operations, principalSecret: opts.principalSecret, metrics, logger: opts.logger, inRequestContext },
      app,
    ),
  );
  await new Promise<void>((resolve, reject) =>
    server.once('error', reject).listen(opts.port, opts.host ?? '127.0.0.1', () => resolve()),
  );
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  opts.logger.info({ port }, `${opts.name} subgraph listening`);
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await apollo.stop();
    },
  };
}
