import { GraphQLDataSourceProcessOptions, RemoteGraphQLDataSource } from '@apollo/gateway';
import { PRINCIPAL_HEADER } from '@em/core';
import { GatewayContext } from './context';
import { markUploads } from './uploads/upload-relay';

/** Calls a subgraph with the signed principal of the request and its request id, files included (see uploads.ts). */
export class PrincipalForwardingDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<GatewayContext>): void {
    if (!('principalToken' in context) || !context.principalToken) return;
    request.http?.headers.set(PRINCIPAL_HEADER, context.principalToken);
    request.http?.headers.set('x-request-id', context.requestId);
    if (request.variables) request.variables = markUploads(request.variables);
  }
}
