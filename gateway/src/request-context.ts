import { AppError, hostFromUrlHeader, Logger, RateLimiter, signPrincipal } from '@em/core';
import type { Request, Response } from 'express';
import { GraphQLError } from 'graphql';
import { Authenticator } from './auth/authenticator';
import { FailedAuthThrottle } from './auth/failed-auth-throttle';
import { GatewayContext } from './context';
import { containsNul } from './nul-characters';
import { OperationLimiter } from './operations/operation-limits';
import { chargeCaller, rateLimited } from './rate-limit-plugin';
import { requestIdFrom } from './request-id';

export interface RequestContextDeps {
  authenticator: Authenticator;
  failedAuth: FailedAuthThrottle;
  operations: OperationLimiter;
  limiter: RateLimiter;
  principal: { secret: string; ttlSeconds: number };
  logger: Logger;
}

/**
 * Apollo's context for each HTTP request, built before Apollo parses, validates or plans
 * anything: the request id (echoed in `x-request-id`), who calls (failed authentications throttled per client address), then the cheap
 * screens of the operation (NUL characters, operation limits). An operation refused by the
 * limits still costs the caller a read.
 */
export function requestContext(deps: RequestContextDeps) {
  return async ({ req, res }: { req: Request; res: Response }): Promise<GatewayContext> => {
    const requestId = requestIdFrom(req.header('x-request-id'));
    res.setHeader('x-request-id', requestId);
    try {
      const caller = { originHost: hostFromUrlHeader(req.header('origin')) ?? hostFromUrlHeader(req.header('referer')), clientIp: req.ip ?? null };
      const credentials = { apiKey: req.header('x-api-key'), authorization: req.header('authorization') };
      const authenticated = await deps.failedAuth.guard(req.ip, () => deps.authenticator.authenticate(credentials, caller, requestId));
      // Postgres cannot hold a NUL character: refused once here rather than failing in a subgraph.
      if (containsNul(req.body)) throw new AppError('BAD_REQUEST', 'The request contains a NUL character, which no field accepts');
      try {
        deps.operations.check(queryOf(req));
      } catch (err) {
        const decision = await chargeCaller(deps.limiter, authenticated, { cls: 'read', units: 1 });
        if (!decision.allowed) throw rateLimited(decision, 'read');
        throw err;
      }
      const principalToken = signPrincipal(authenticated.principal, deps.principal.secret, deps.principal.ttlSeconds);
      return { ...authenticated, principalToken, requestId };
    } catch (err) {
      if (err instanceof GraphQLError) throw err;
      if (err instanceof AppError) throw graphQLErrorOf(err);
      deps.logger.error({ err }, 'authentication failed unexpectedly');
      throw new GraphQLError('The service is temporarily unavailable', { extensions: { code: 'UNAVAILABLE', http: { status: 503 } } });
    }
  };
}

/** The operation's text where Apollo reads it: the body, or for GET the first `query` parameter. */
function queryOf(req: Request): unknown {
  if (req.method !== 'GET') return req.body?.query;
  return new URLSearchParams(req.originalUrl.split('?')[1] ?? '').get('query');
}

export function graphQLErrorOf(err: AppError): GraphQLError {
  const retryAfterSeconds = err.details?.retryAfterSeconds;
  if (!retryAfterSeconds) return new GraphQLError(err.message, { extensions: { code: err.code, http: { status: err.status } } });
  const http = { status: err.status, headers: new Map([['retry-after', String(retryAfterSeconds)]]) };
  return new GraphQLError(err.message, { extensions: { code: err.code, retryAfterSeconds, http } });
}
