import { AppError, clientAddress, hostFromUrlHeader, Logger, newId, TrustProxy } from '@em/core';
import { GraphQLSchema } from 'graphql';
import type { IncomingMessage, Server } from 'node:http';
import { WebSocketServer } from 'ws';
import { Authenticator } from '../auth/authenticator';

// graphql-ws's `use/ws` entry is reachable through package exports only (this build resolves like node10).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { useServer } = require('graphql-ws/use/ws') as { useServer: (options: Record<string, unknown>, ws: WebSocketServer) => { dispose(): Promise<void> } };

/**
 * GraphQL subscriptions over graphql-ws on the gateway's `/graphql` path. The connection is
 * authenticated like a query: `x-api-key` or `authorization` in the connection parameters (or
 * the upgrade request's headers), the host allowlist by Origin or client address.
 */
export function serveSubscriptions(server: Server, schema: GraphQLSchema, authenticator: Authenticator, logger: Logger, trustProxy: TrustProxy): { close(): Promise<void> } {
  const wss = new WebSocketServer({ server, path: '/graphql' });
  const handle = useServer(
    {
      schema,
      onConnect: async (ctx: { connectionParams?: Record<string, unknown>; extra: { request: { headers: Record<string, string | undefined>; socket: { remoteAddress?: string } }; principal?: unknown } }) => {
        const params = ctx.connectionParams ?? {};
        const headers = ctx.extra.request.headers;
        const pick = (name: string) => (typeof params[name] === 'string' ? (params[name] as string) : headers[name]);
        try {
          const { principal } = await authenticator.authenticate(
            { apiKey: pick('x-api-key'), authorization: pick('authorization') },
            { originHost: hostFromUrlHeader(headers.origin) ?? hostFromUrlHeader(headers.referer), clientIp: clientAddress(ctx.extra.request as unknown as IncomingMessage, trustProxy) },
            newId(),
          );
          ctx.extra.principal = principal;
          return true;
        } catch (err) {
          if (!(err instanceof AppError)) logger.error({ err }, 'subscription authentication failed');
          return false;
        }
      },
      context: (ctx: { extra: { principal?: unknown } }) => ({ principal: ctx.extra.principal }),
    },
    wss,
  );
  return {
    async close() {
      await handle.dispose();
      wss.close();
    },
  };
}
