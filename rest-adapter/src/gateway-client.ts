import { AppError } from '@em/core';
import { Pool } from 'undici';

export interface GraphQLResult {
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; extensions?: { code?: string; retryAfterSeconds?: number } }>;
}

/** POSTs GraphQL operations to the gateway over a keep-alive connection pool. */
export class GatewayClient {
  private readonly pool: Pool;
  private readonly path: string;

  constructor(gatewayUrl: string, connections = 64) {
    const url = new URL(gatewayUrl);
    this.pool = new Pool(url.origin, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
    this.path = url.pathname;
  }

  async execute(query: string, variables: Record<string, unknown>, headers: Record<string, string>): Promise<GraphQLResult> {
    let response;
    try {
      response = await this.pool.request({
        method: 'POST',
        path: this.path,
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
    } catch {
      throw new AppError('UNAVAILABLE', 'The service is temporarily unavailable');
    }
    const text = await response.body.text();
    try {
      return JSON.parse(text) as GraphQLResult;
    } catch {
      throw new AppError('UNAVAILABLE', 'The service is temporarily unavailable');
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
