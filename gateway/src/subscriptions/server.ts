import { AppError, Logger, newId, Principal } from '@em/core';
import { CallerHost, hostFromUrlHeader } from '../auth/host-allowlist';
import { GraphQLError, GraphQLSchema } from 'graphql';
import type { IncomingMessage, Server } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import { Authenticator, Credentials } from '../auth/authenticator';
import { FailedAuthThrottle } from '../auth/failed-auth-throttle';
import { OperationLimiter } from '../operations/operation-limits';

// graphql-ws's `use/ws` entry is reachable through package exports only (this build resolves like node10).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { useServer } = require('graphql-ws/use/ws') as {
  useServer: (options: Record<string, unknown>, ws: WebSocketServer) => { dispose(): Promise<void> };
};

/** graphql-ws's close code for a refused credential. */
const FORBIDDEN = 4403;

export interface SubscriptionDeps {
  /** The client's address of an upgrade request, through the trusted proxies (as express's `req.ip`). */
  clientAddress: (request: IncomingMessage) => string;
  authenticator: Authenticator;
  failedAuth: FailedAuthThrottle;
  operations: OperationLimiter;
  logger: Logger;
}

interface Connection {
  credentials: Credentials;
  caller: CallerHost;
  principal?: Principal;
  socket: WebSocket;
}

interface WsContext {
  connectionParams?: Record<string, unknown>;
  extra: { request: IncomingMessage; socket: WebSocket; connection?: Connection };
}

/**
 * GraphQL subscriptions over graphql-ws on the gateway's `/graphql` path. The connection is
 * authenticated like a query: `x-api-key` or `authorization` in the connection parameters (or
 * the upgrade request's headers), the host allowlist by Origin or client address (through the
 * trusted proxies), failures throttled per address. The credential is checked again on every `subscribe` message and when
 * its key is announced changed (recheckKey): a connection whose credential no longer holds is
 * closed with 4403. Each subscription passes the same operation limits as queries.
 */
export function serveSubscriptions(server: Server, schema: GraphQLSchema, deps: SubscriptionDeps) {
  const wss = new WebSocketServer({ server, path: '/graphql' });
  const connections = new Set<Connection>();

  const authenticate = async (connection: Connection): Promise<boolean> => {
    try {
      const address = connection.caller.clientIp;
      const { principal } = await deps.failedAuth.guard(
        address,
        () => deps.authenticator.authenticate(connection.credentials, connection.caller, newId()),
        { looksUp: deps.authenticator.looksUp(connection.credentials) },
      );
      connection.principal = principal;
      return true;
    } catch (err) {
      if (!(err instanceof AppError)) deps.logger.error({ err }, 'subscription authentication failed');
      return false;
    }
  };
  const refuse = (connection: Connection) => {
    connections.delete(connection);
    connection.socket.close(FORBIDDEN, 'Forbidden');
  };

  const handle = useServer(
    {
      schema,
      onConnect: async (ctx: WsContext) => {
        const params = ctx.connectionParams ?? {};
        const headers = ctx.extra.request.headers;
        const pick = (name: string) =>
          typeof params[name] === 'string' ? params[name] : (headers[name] as string | undefined);
        const connection: Connection = {
          credentials: { apiKey: pick('x-api-key'), authorization: pick('authorization') },
          caller: {
            originHost: hostFromUrlHeader(headers.origin) ?? hostFromUrlHeader(headers.referer),
            clientIp: deps.clientAddress(ctx.extra.request),
          },
          socket: ctx.extra.socket,
        };
        if (!(await authenticate(connection))) return false;
        ctx.extra.connection = connection;
        connections.add(connection);
        return true;
      },
      onSubscribe: async (ctx: WsContext, _id: string, payload: { query: string }) => {
        const connection = ctx.extra.connection!;
        if (!(await authenticate(connection))) {
          setImmediate(() => refuse(connection));
          return [new GraphQLError('The credential is no longer valid', { extensions: { code: 'FORBIDDEN' } })];
        }
        try {
          deps.operations.check(payload.query);
        } catch (err) {
          if (err instanceof AppError) return [new GraphQLError(err.message, { extensions: { code: err.code } })];
          throw err;
        }
      },
      onClose: (ctx: WsContext) => void (ctx.extra.connection && connections.delete(ctx.extra.connection)),
      context: (ctx: WsContext) => ({ principal: ctx.extra.connection?.principal }),
    },
    wss,
  );
  return {
    /** Checks again every connection of a key that was announced changed. */
    async recheckKey(keyId: number): Promise<void> {
      const affected = [...connections].filter(
        (c) => c.principal?.kind === 'api_key' && c.principal.apiKeyId === keyId,
      );
      await Promise.all(affected.map(async (c) => (await authenticate(c)) || refuse(c)));
    },
    async close() {
      await handle.dispose();
      wss.close();
    },
  };
}
