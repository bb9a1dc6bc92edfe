import { GraphQLDataSourceProcessOptions, RemoteGraphQLDataSource } from '@apollo/gateway';
import { normaliseErrorCode, PRINCIPAL_HEADER } from '@em/core';
import type { FetcherResponse } from '@apollo/utils.fetcher';
import { GraphQLError } from 'graphql';
import { GatewayContext } from './context';
import { markUploads } from './uploads/upload-relay';

/** Calls a subgraph with the signed principal of the request and its request id, files included (see uploads.ts). */
export class PrincipalForwardingDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<GatewayContext>): void {
    if (!('principalToken' in context) || typeof context.principalToken !== 'string' || !context.principalToken) return;
    request.http?.headers.set(PRINCIPAL_HEADER, context.principalToken);
    request.http?.headers.set('x-request-id', String(context.requestId));
    if (request.variables) request.variables = markUploads(request.variables);
  }

  /**
   * A subgraph's 400 (variables it cannot coerce, e.g. an impossible date) keeps the subgraph's
   * first error and its code; Apollo would make it a code-less "400: Bad Request", an internal error.
   */
  override async errorFromResponse(response: FetcherResponse): Promise<GraphQLError> {
    const error = await super.errorFromResponse(response);
    const body = (
      error.extensions.response as
        { body?: { errors?: Array<{ message?: unknown; extensions?: { code?: unknown } }> } } | undefined
    )?.body;
    const first = body?.errors?.[0];
    const code = normaliseErrorCode(first?.extensions?.code);
    if (response.status !== 400 || typeof first?.message !== 'string' || code === 'INTERNAL') return error;
    return new GraphQLError(first.message, { extensions: { code } });
  }
}
