// The REST adapter as a library (the handler, its route table, the gateway client); `main.ts` runs it as a process.
export { API_PREFIX, createRestHandler } from './app';
export type { AdapterOptions } from './app';
export { GatewayClient } from './gateway-client';
export type { GraphQLResult } from './gateway-client';
export { ROUTES, rootFieldOf } from './routes';
export type { RouteDef } from './routes';
