import { AppError, postMultipart, RATE_GRANT_HEADER, RateGrant } from '@em/core';
import { parseRateGrant } from './http/read-grants';
import { Pool } from 'undici';
import type { TypedDocumentString } from './generated/graphql';

/** The gateway's answer to an operation whose result type is `TData`. */
export interface GraphQLResult<TData = unknown> {
  data?: TData | null;
  errors?: Array<{ message: string; extensions?: { code?: string; retryAfterSeconds?: number } }>;
}

/** POSTs typed GraphQL operations (rest-adapter/src/generated) to the gateway over a keep-alive connection pool. */
export class GatewayClient {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly origin: string;

  constructor(gatewayUrl: string, connections = 64) {
    const url = new URL(gatewayUrl);
    this.pool = new Pool(url.origin, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
    this.path = url.pathname;
    this.origin = url.origin;
  }

  async execute<TResult, TVariables>(
    document: TypedDocumentString<TResult, TVariables>,
    variables: TVariables,
    headers: Record<string, string>,
  ): Promise<GraphQLResult<TResult>> {
    return (await this.executeForGrant(document, variables, headers, false)).result;
  }

  /** As `execute`, and with `askGrant` the caller's read budget the gateway tells (RATE_GRANT_HEADER), if it does. */
  async executeForGrant<TResult, TVariables>(
    document: TypedDocumentString<TResult, TVariables>,
    variables: TVariables,
    headers: Record<string, string>,
    askGrant = true,
  ): Promise<{ result: GraphQLResult<TResult>; grant: RateGrant | null }> {
    let response;
    try {
      response = await this.pool.request({
        method: 'POST',
        path: this.path,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...headers,
          ...(askGrant ? { [RATE_GRANT_HEADER]: 'read' } : {}),
        },
        body: JSON.stringify({ query: document.toString(), variables }),
      });
    } catch {
      throw new AppError('UNAVAILABLE', 'The service is temporarily unavailable');
    }
    const text = await response.body.text();
    try {
      // The gateway serves the schema the document's types were generated from.
      const result = JSON.parse(text) as GraphQLResult<TResult>;
      return { result, grant: askGrant ? parseRateGrant(response.headers[RATE_GRANT_HEADER]) : null };
    } catch {
      throw new AppError('UNAVAILABLE', 'The service is temporarily unavailable');
    }
  }

  /**
   * A GraphQL multipart request, as the gateway's upload support reads it: the files in the list
   * `variables.<name>`, or the one file in `variables.<name>` when `single`.
   */
  async executeWithFiles<TResult, TVariables>(
    document: TypedDocumentString<TResult, TVariables>,
    variables: TVariables,
    upload: { variable: string; single?: boolean },
    files: Array<{ fileName: string; mimeType: string; path: string }>,
    headers: Record<string, string>,
  ): Promise<GraphQLResult<TResult>> {
    const { variable, single } = upload;
    const operations = JSON.stringify({
      query: document.toString(),
      variables: { ...variables, [variable]: single ? null : files.map(() => null) },
    });
    const map = JSON.stringify(
      Object.fromEntries(
        files.map((_, i) => [String(i), [single ? `variables.${variable}` : `variables.${variable}.${i}`]]),
      ),
    );
    // Read from disk chunk by chunk as the socket takes them, never whole in memory.
    const parts = files.map((f, i) => ({ field: String(i), path: f.path, fileName: f.fileName, mimeType: f.mimeType }));
    let answer;
    try {
      answer = await postMultipart(`${this.origin}${this.path}`, {
        headers: { ...headers, accept: 'application/json', 'apollo-require-preflight': 'true' },
        fields: [
          ['operations', operations],
          ['map', map],
        ],
        files: parts,
      });
    } catch {
      throw new AppError('UNAVAILABLE', 'The service is temporarily unavailable');
    }
    try {
      return JSON.parse(answer.body) as GraphQLResult<TResult>;
    } catch {
      throw new AppError('UNAVAILABLE', 'The service is temporarily unavailable');
    }
  }

  /** Readiness: the gateway's own readiness answers 200. */
  async ready(): Promise<void> {
    const res = await this.pool.request({ method: 'GET', path: '/health/ready' });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`gateway not ready (${res.statusCode})`);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
