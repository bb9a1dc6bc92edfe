import { AppError, jsonDepthExceeds, Logger, MAX_JSON_DEPTH, RateLimiter, signPrincipal } from '@em/core';
import type { Request, Response } from 'express';
import { hostFromUrlHeader } from './auth/host-allowlist';
import { GraphQLError } from 'graphql';
import { Authenticator } from './auth/authenticator';
import { FailedAuthThrottle } from './auth/failed-auth-throttle';
import { GatewayContext } from './context';
import { containsNul } from './nul-characters';
import { OperationLimiter } from './operations/operation-limits';
import { chargeCaller, rateLimited } from './rate-limit-plugin';
import { requestIdFrom } from './request-id';
import { MultipartOperation } from './uploads/authorize-uploads';

export interface RequestContextDeps {
  authenticator: Authenticator;
  failedAuth: FailedAuthThrottle;
  operations: OperationLimiter;
  limiter: RateLimiter;
  principal: { secret: string; ttlSeconds: number };
  logger: Logger;
  /** Authorises a multipart operation's root fields before its files are read (uploads/authorize-uploads.ts). */
  authorizeUploads?: (operation: MultipartOperation, principal: { token: string; requestId: string }) => Promise<void>;
}

/** What the context of a request is built from (the express request, or the compiled path's). */
export interface RequestFacts {
  requestId: string;
  origin?: string;
  referer?: string;
  apiKey?: string;
  authorization?: string;
  /** The client address, resolved through TRUST_PROXY. */
  clientIp: string | undefined;
  /** The parsed request body (searched for NUL characters). */
  body: unknown;
  /** The operation's text; undefined when the operation limits were already checked for it. */
  query: unknown;
}

/**
 * Apollo's context for each HTTP request, built before Apollo parses, validates or plans
 * anything: the request id (echoed in `x-request-id`), who calls (failed authentications throttled per client address), then the cheap
 * screens of the operation (NUL characters, operation limits). An operation refused by the
 * limits still costs the caller a read. A request the compiled path has begun brings its context
 * (or the error building it) along: it is never built twice.
 */
export function requestContext(deps: RequestContextDeps) {
  return async ({ req, res }: { req: Request; res: Response }): Promise<GatewayContext> => {
    const carried = carriedContexts.get(req);
    if (carried) {
      if ('error' in carried) throw carried.error;
      return carried.context;
    }
    const requestId = requestIdFrom(req.header('x-request-id'));
    res.setHeader('x-request-id', requestId);
    const context = await contextOf(deps, {
      requestId,
      origin: req.header('origin'),
      referer: req.header('referer'),
      apiKey: req.header('x-api-key'),
      authorization: req.header('authorization'),
      clientIp: req.ip,
      body: req.body,
      query: queryOf(req),
    });
    if (deps.authorizeUploads && req.is('multipart/form-data')) {
      try {
        await deps.authorizeUploads(req.body as MultipartOperation, { token: context.principalToken, requestId });
      } catch (err) {
        if (err instanceof AppError) throw graphQLErrorOf(err);
        deps.logger.error({ err }, 'upload authorisation failed unexpectedly');
        throw new GraphQLError('The service is temporarily unavailable', {
          extensions: { code: 'UNAVAILABLE', http: { status: 503 } },
        });
      }
    }
    return context;
  };
}

/** Contexts built by the compiled path for requests it hands to Apollo (see fast-path/). */
export const carriedContexts = new WeakMap<object, { context: GatewayContext } | { error: unknown }>();

/** The context of a request, or the GraphQLError that refuses it. */
export async function contextOf(deps: RequestContextDeps, facts: RequestFacts): Promise<GatewayContext> {
  const { requestId } = facts;
  try {
    const caller = {
      originHost: hostFromUrlHeader(facts.origin) ?? hostFromUrlHeader(facts.referer),
      clientIp: facts.clientIp ?? null,
    };
    const credentials = { apiKey: facts.apiKey, authorization: facts.authorization };
    const authenticated = await deps.failedAuth.guard(
      facts.clientIp,
      () => deps.authenticator.authenticate(credentials, caller, requestId),
      { looksUp: deps.authenticator.looksUp(credentials) },
    );
    // Bounded before any recursive walk (the NUL screen, Apollo's variable coercion) can overflow the stack.
    if (jsonDepthExceeds(facts.body))
      throw new AppError('BAD_REQUEST', `The request's JSON nests deeper than ${MAX_JSON_DEPTH} levels`);
    // Postgres cannot hold a NUL character: refused once here rather than failing in a subgraph.
    if (containsNul(facts.body))
      throw new AppError('BAD_REQUEST', 'The request contains a NUL character, which no field accepts');
    try {
      if (facts.query !== undefined) deps.operations.check(facts.query);
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
    throw new GraphQLError('The service is temporarily unavailable', {
      extensions: { code: 'UNAVAILABLE', http: { status: 503 } },
    });
  }
}

/** The operation's text where Apollo reads it: the body, or for GET the first `query` parameter. */
function queryOf(req: Request): unknown {
  if (req.method !== 'GET') return (req.body as { query?: unknown } | undefined)?.query;
  return new URLSearchParams(req.originalUrl.split('?')[1] ?? '').get('query');
}

export function graphQLErrorOf(err: AppError): GraphQLError {
  const retryAfterSeconds = err.details?.retryAfterSeconds;
  if (!retryAfterSeconds)
    return new GraphQLError(err.message, { extensions: { code: err.code, http: { status: err.status } } });
  const http = { status: err.status, headers: new Map([['retry-after', String(Number(retryAfterSeconds))]]) };
  return new GraphQLError(err.message, { extensions: { code: err.code, retryAfterSeconds, http } });
}
