import { AppError, clientNetworkKey, Logger, newId, Principal, RateLimiter } from '@em/core';
import { CallerHost, hostFromUrlHeader } from '../auth/host-allowlist';
import { GraphQLError, GraphQLSchema } from 'graphql';
import type { IncomingMessage, Server } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import { Authenticated, Authenticator, Credentials } from '../auth/authenticator';
import { FailedAuthThrottle } from '../auth/failed-auth-throttle';
import { OperationLimiter } from '../operations/operation-limits';
import { chargeCaller, rateLimited } from '../rate-limit-plugin';

// graphql-ws's `use/ws` entry is reachable through package exports only (this build resolves like node10).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { useServer } = require('graphql-ws/use/ws') as {
  useServer: (options: Record<string, unknown>, ws: WebSocketServer) => { dispose(): Promise<void> };
};

/** graphql-ws's close code for a refused credential. */
const FORBIDDEN = 4403;
/** Subscriptions one connection holds at once: the dashboard's pages hold one each. */
export const SUBSCRIPTIONS_PER_CONNECTION = 20;
/** Connections one client address holds at once on a gateway process: an office behind one NAT, not a flood. */
export const CONNECTIONS_PER_ADDRESS = 100;

export interface SubscriptionDeps {
  /** The client's address of an upgrade request, through the trusted proxies (as express's `req.ip`). */
  clientAddress: (request: IncomingMessage) => string;
  authenticator: Authenticator;
  failedAuth: FailedAuthThrottle;
  operations: OperationLimiter;
  limiter: RateLimiter;
  /** The largest message a socket takes (GRAPHQL_MAX_BODY_BYTES: no more than an HTTP request's body). */
  maxMessageBytes: number;
  logger: Logger;
}

interface Connection {
  credentials: Credentials;
  caller: CallerHost;
  principal?: Principal;
  authenticated?: Authenticated;
  /** The ids of the subscriptions let in and not known to have ended. */
  subscriptions: Set<string>;
  socket: WebSocket;
}

interface WsContext {
  connectionParams?: Record<string, unknown>;
  extra: { request: IncomingMessage; socket: WebSocket; connection?: Connection };
  /** graphql-ws's subscriptions of the connection: those running and those being subscribed. */
  subscriptions: Record<string, unknown>;
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
  const perAddress = new Map<string, number>();
  // An IPv6 caller counts as its /64, as for its budgets: one subscriber holds the whole network.
  const networkOf = (request: IncomingMessage) => clientNetworkKey(deps.clientAddress(request));
  const wss = new WebSocketServer({
    server,
    path: '/graphql',
    maxPayload: deps.maxMessageBytes,
    // Synchronous up to the 'connection' event below, so upgrades arriving together cannot all pass the check.
    verifyClient: (info: { req: IncomingMessage }, accept: (ok: boolean, code?: number, message?: string) => void) =>
      (perAddress.get(networkOf(info.req)) ?? 0) >= CONNECTIONS_PER_ADDRESS
        ? accept(false, 429, 'Too many connections from this address')
        : accept(true),
  });
  wss.on('connection', (socket, request) => {
    const address = networkOf(request);
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    socket.once('close', () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
  });
  const connections = new Set<Connection>();

  const authenticate = async (connection: Connection): Promise<boolean> => {
    try {
      const address = connection.caller.clientIp;
      const authenticated = await deps.failedAuth.guard(
        address,
        () => deps.authenticator.authenticate(connection.credentials, connection.caller, newId()),
        { looksUp: deps.authenticator.looksUp(connection.credentials) },
      );
      connection.principal = authenticated.principal;
      connection.authenticated = authenticated;
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
          subscriptions: new Set(),
          socket: ctx.extra.socket,
        };
        if (!(await authenticate(connection))) return false;
        ctx.extra.connection = connection;
        connections.add(connection);
        return true;
      },
      onSubscribe: async (ctx: WsContext, id: string, payload: { query: string }) => {
        const connection = ctx.extra.connection!;
        // An id graphql-ws no longer holds has ended, however it ended (completed, failed, refused below).
        for (const held of connection.subscriptions)
          if (!(held in ctx.subscriptions)) connection.subscriptions.delete(held);
        if (connection.subscriptions.size >= SUBSCRIPTIONS_PER_CONNECTION)
          return [
            new GraphQLError(`A connection holds at most ${SUBSCRIPTIONS_PER_CONNECTION} subscriptions at once`, {
              extensions: { code: 'RATE_LIMITED' },
            }),
          ];
        connection.subscriptions.add(id);
        if (!(await authenticate(connection))) {
          setImmediate(() => refuse(connection));
          return [new GraphQLError('The credential is no longer valid', { extensions: { code: 'FORBIDDEN' } })];
        }
        // Each subscription is charged like a query: a connection is no way around the caller's budget.
        const decision = await chargeCaller(deps.limiter, connection.authenticated!, { cls: 'read', units: 1 });
        if (!decision.allowed) {
          const { message, extensions } = rateLimited(decision, 'read');
          return [
            new GraphQLError(message, {
              extensions: { code: extensions.code, retryAfterSeconds: extensions.retryAfterSeconds },
            }),
          ];
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
