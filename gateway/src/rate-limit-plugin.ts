import { ApolloServerPlugin } from '@apollo/server';
import { FACE_MATCHING_FIELDS, Principal, RateClass, RateLimiter } from '@em/core';
import { GraphQLError, Kind, OperationDefinitionNode } from 'graphql';
import { GatewayContext } from './context';
import { FaceSearchRetries } from './face-search-retries';

/** An operation is face matching when one of its root fields is. */
export function rateClassOf(operation: OperationDefinitionNode | undefined): RateClass {
  const fields = operation?.selectionSet.selections ?? [];
  return fields.some((s) => s.kind === Kind.FIELD && FACE_MATCHING_FIELDS.has(s.name.value)) ? 'matching' : 'read';
}

/**
 * Counts every operation against its credential's budget before it is planned: 429 with
 * Retry-After (and `retryAfterSeconds` in the error) once the window's budget is spent. A face
 * search retried with a stored requestId counts as a read.
 */
export function rateLimitPlugin(limiter: RateLimiter, retries: FaceSearchRetries): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, operation, request }) {
          let cls = rateClassOf(operation);
          if (cls === 'matching' && (await retries.isCachedRetry(operation, request.variables, organisationsOf(contextValue.principal)))) cls = 'read';
          const limit = cls === 'read' && contextValue.readLimit ? contextValue.readLimit : limiter.defaultLimit(cls);
          const decision = await limiter.consume(cls, contextValue.rateSubject, limit);
          if (decision.allowed) return;
          throw new GraphQLError(`Rate limit exceeded (${decision.limit} ${cls === 'matching' ? 'face-matching calls' : 'calls'} per window); retry in ${decision.retryAfterSeconds} s`, {
            extensions: {
              code: 'RATE_LIMITED',
              retryAfterSeconds: decision.retryAfterSeconds,
              http: { status: 429, headers: new Map([['retry-after', String(decision.retryAfterSeconds)]]) },
            },
          });
        },
      };
    },
  };
}

function organisationsOf(principal: Principal): number[] {
  if (principal.orgId !== null) return [principal.orgId];
  return Object.keys(principal.orgRoles ?? {}).map(Number);
}
