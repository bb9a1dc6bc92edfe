// The gateway's parts as a library (authentication, operation limits, subscriptions, the upload-aware
// data source); `main.ts` assembles them into the gateway process.
export { ApiKeyLookup } from './auth/api-key-cache';
export { Authenticator } from './auth/authenticator';
export { FailedAuthThrottle } from './auth/failed-auth-throttle';
export { graphqlBodyErrors } from './body-errors';
export { OperationLimiter, operationLimitsOf } from './operations/operation-limits';
export { requestContext } from './request-context';
export type { GatewayContext } from './context';
export { PrincipalForwardingDataSource } from './data-source';
export { formatGatewayError } from './errors';
export { FaceSearchRetries, storedFaceSearchCheck } from './face-search-retries';
export { RedisChannelFeed } from './subscriptions/redis-channel-feed';
export { authoriseByQuery, eventFeedStream, FEED_GUARDS } from './subscriptions/event-feed-subscription';
export { clipStatusSchema } from './subscriptions/clip-status-subscription';
export { serveSubscriptions } from './subscriptions/server';
export { EXAMPLE_OPERATIONS, landingPage } from './landing-page';
export { rateLimitPlugin } from './rate-limit-plugin';
export { uploadAwareFetch } from './uploads/upload-relay';
export { subgraphQuery } from './subgraph-query';
export { currentClipStatusFromMedia } from './subscriptions/current-clip-status';
