import type { FetcherHeaders, FetcherRequestInit, FetcherResponse } from '@apollo/utils.fetcher';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Pool } from 'undici';

/** A subgraph's answer as it came: status, headers, body text. */
export interface RawSubgraphResponse {
  status: number;
  headers: RawHeaders;
  body: string;
}

/**
 * A subgraph answer the compiled path already has, for the request it hands to Apollo: the
 * gateway's call to that URL gets it instead of calling the subgraph a second time.
 */
export const carriedResponses = new AsyncLocalStorage<{ url: string; response: RawSubgraphResponse; used: boolean }>();

/**
 * The gateway's calls to subgraphs over one keep-alive pool per subgraph (undici's request API):
 * a WHATWG fetch costs several times the CPU per call, and every read of the API makes one.
 * Connection failures keep the wording the gateway's error mapping treats as "unavailable".
 */
export class SubgraphFetcher {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly connectionsPerSubgraph = 64) {}

  readonly fetch = async (url: string, init: FetcherRequestInit = {}): Promise<FetcherResponse> => {
    const carried = carriedResponses.getStore();
    if (carried && !carried.used && carried.url === url) {
      carried.used = true;
      return new SubgraphResponse(url, carried.response.status, carried.response.headers, carried.response.body);
    }
    try {
      const response = await this.request(url, {
        method: init.method ?? 'GET',
        headers: init.headers as Record<string, string>,
        body: init.body as string | undefined,
      });
      return new SubgraphResponse(url, response.status, response.headers, response.body);
    } catch (err) {
      throw new Error(`fetch failed: ${(err as Error).message}`, { cause: err });
    }
  };

  async request(
    url: string,
    init: { method: string; headers: Record<string, string>; body?: string },
  ): Promise<RawSubgraphResponse> {
    const target = new URL(url);
    let pool = this.pools.get(target.origin);
    if (!pool) {
      pool = new Pool(target.origin, { connections: this.connectionsPerSubgraph, keepAliveTimeout: 30_000 });
      this.pools.set(target.origin, pool);
    }
    const response = await pool.request({
      method: init.method,
      path: target.pathname + target.search,
      headers: init.headers,
      body: init.body,
    });
    return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
  }
}

type RawHeaders = Record<string, string | string[] | undefined>;

/** The part of a fetch Response that Apollo's RemoteGraphQLDataSource reads. */
class SubgraphResponse implements FetcherResponse {
  readonly bodyUsed = false;
  readonly redirected = false;
  readonly ok: boolean;
  readonly statusText = '';
  readonly headers: FetcherResponse['headers'];

  constructor(
    readonly url: string,
    readonly status: number,
    raw: RawHeaders,
    private readonly body: string,
  ) {
    this.ok = status >= 200 && status < 300;
    this.headers = new ResponseHeaders(raw);
  }

  async text(): Promise<string> {
    return this.body;
  }

  async json(): Promise<unknown> {
    return JSON.parse(this.body) as unknown;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return new TextEncoder().encode(this.body).buffer;
  }

  clone(): FetcherResponse {
    return this;
  }
}

/** Response headers as undici gives them (lower-case names), behind fetch's Headers interface. */
class ResponseHeaders implements FetcherHeaders {
  private readonly values_ = new Map<string, string>();

  constructor(raw: RawHeaders) {
    for (const [name, value] of Object.entries(raw))
      if (value !== undefined) this.values_.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
  }

  get(name: string): string | null {
    return this.values_.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.values_.has(name.toLowerCase());
  }
  set(name: string, value: string): void {
    this.values_.set(name.toLowerCase(), value);
  }
  append(name: string, value: string): void {
    const existing = this.get(name);
    this.set(name, existing === null ? value : `${existing}, ${value}`);
  }
  delete(name: string): void {
    this.values_.delete(name.toLowerCase());
  }
  entries(): IterableIterator<[string, string]> {
    return this.values_.entries();
  }
  keys(): IterableIterator<string> {
    return this.values_.keys();
  }
  values(): IterableIterator<string> {
    return this.values_.values();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.values_.entries();
  }
}
