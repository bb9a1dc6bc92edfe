import { ApolloServerPlugin } from '@apollo/server';
import {
  chargeGrant,
  findOperationPolicy,
  RateClass,
  RateDecision,
  RateLimiter,
  rateGrantOf,
  rateLimitedMessage,
} from '@em/core';
import { FieldNode, GraphQLError } from 'graphql';
import { GatewayContext } from './context';
import { FaceSearchRetries } from './face-search-retries';
import { fragmentsOf, rootFieldsOf } from './operations/root-fields';

/** What an operation costs: face-matching units when it runs face matching, else one read. */
export interface Charge {
  cls: RateClass;
  units: number;
}

/**
 * One unit per root field whose policy rate is `matching` (fragments opened, so `... on Mutation
 * { searchFaces }` counts; each such field takes at most one selfie, so this is also one unit per
 * selfie), except a call that the policy lets a stored requestId answer and whose requestId is
 * stored, which is a read. An operation without face matching is one read.
 */
export async function chargeOf(
  fields: FieldNode[],
  isCachedRetry: (field: FieldNode) => Promise<boolean>,
): Promise<Charge> {
  let units = 0;
  for (const field of fields) {
    const policy = findOperationPolicy(field.name.value);
    if (policy?.rate !== 'matching') continue;
    if (policy.storedRequestIdIsRead && (await isCachedRetry(field))) continue;
    units++;
  }
  return units > 0 ? { cls: 'matching', units } : { cls: 'read', units: 1 };
}

/**
 * Counts every operation against its credential's budget before it is planned: 429 with
 * Retry-After (and `retryAfterSeconds` in the error) once the window's budget is spent. An
 * operation that fails to parse or validate costs one read too (counted as it is answered).
 */
export function rateLimitPlugin(limiter: RateLimiter, retries: FaceSearchRetries): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      let charged = false;
      return {
        async didResolveOperation({ contextValue, document, operation, request }) {
          charged = true;
          if (contextValue.precharged) {
            if (!contextValue.precharged.allowed) throw rateLimited(contextValue.precharged, 'read');
            return;
          }
          const fields = rootFieldsOf(operation, fragmentsOf(document));
          const caller = {
            principal: contextValue.principal,
            token: contextValue.principalToken,
            requestId: contextValue.requestId,
          };
          const charge = await chargeOf(fields, (field) => retries.isCachedRetry(field, request.variables, caller));
          const decision = await chargeCaller(limiter, contextValue, charge);
          if (!decision.allowed) throw rateLimited(decision, charge.cls);
        },
        async willSendResponse({ contextValue }) {
          if (!charged && contextValue?.rateSubject)
            await chargeCaller(limiter, contextValue, { cls: 'read', units: 1 });
        },
      };
    },
  };
}

/** Charges the caller's budget (RateLimiter.charge: a browser key's visitor, then the key's shared ceiling). */
export function chargeCaller(
  limiter: RateLimiter,
  caller: Pick<GatewayContext, 'rateSubject' | 'sharedRateSubject' | 'readLimit'>,
  charge: Charge,
): Promise<RateDecision> {
  return chargeGrant(limiter, charge.cls, rateGrantOf(limiter, charge.cls, caller), charge.units);
}

export function rateLimited(decision: RateDecision, cls: RateClass): GraphQLError {
  return new GraphQLError(rateLimitedMessage(decision, cls), {
    extensions: {
      code: 'RATE_LIMITED',
      retryAfterSeconds: decision.retryAfterSeconds,
      http: { status: 429, headers: new Map([['retry-after', String(decision.retryAfterSeconds)]]) },
    },
  });
}
