import { ApolloServerPlugin } from '@apollo/server';
import { FACE_MATCHING_FIELDS, RateClass, RateLimiter } from '@em/core';
import { GraphQLError, Kind, OperationDefinitionNode } from 'graphql';
import { GatewayContext } from './context';

/** An operation is face matching when one of its root fields is. */
export function rateClassOf(operation: OperationDefinitionNode | undefined): RateClass {
  const fields = operation?.selectionSet.selections ?? [];
  return fields.some((s) => s.kind === Kind.FIELD && FACE_MATCHING_FIELDS.has(s.name.value)) ? 'matching' : 'read';
}

/**
 * Counts every operation against its credential's budget before it is planned: 429 with
 * Retry-After (and `retryAfterSeconds` in the error) once the window's budget is spent.
 */
export function rateLimitPlugin(limiter: RateLimiter): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, operation }) {
          const cls = rateClassOf(operation);
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
