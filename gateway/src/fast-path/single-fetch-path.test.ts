import 'reflect-metadata';
import { Supergraph } from '@apollo/federation-internals';
import { AppError, createLogger, loadConfig, RateDecision, ServiceMetrics, verifyPrincipal } from '@em/core';
import { apiKeyPrincipal } from '@em/core/testing';
import { readFileSync } from 'node:fs';
import http, { IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import { OperationLimiter, operationLimitsOf } from '../operations/operation-limits';
import { carriedContexts, RequestContextDeps } from '../request-context';
import { carriedResponses, RawSubgraphResponse, SubgraphFetcher } from '../subgraph-fetcher';
import { FAST_PATH_MAX_QUERY_CHARS, singleFetchPath } from './single-fetch-path';
import { SingleFetchPlans } from './single-fetch-plans';

const sdl = readFileSync(path.join(__dirname, '..', '..', '..', 'supergraph.graphql'), 'utf8');
const limits = new OperationLimiter(
  Supergraph.build(sdl).apiSchema().toGraphQLJSSchema(),
  operationLimitsOf(loadConfig({ DATA_DIR: '/nonexistent' })),
);
const plans = SingleFetchPlans.fromSupergraphSdl(sdl, limits);
const logger = createLogger('test');
logger.level = 'silent';
const SECRET = 'a-secret-of-the-tests-0123456789';
const GALLERY =
  'query AllPhotos($orgId: Int!, $eventId: Int!, $page: Int) { photos(orgId: $orgId, eventId: $eventId, page: $page) { items { key: id } } }';

function setup(opts: { subgraph?: RawSubgraphResponse; decision?: Partial<RateDecision>; authError?: AppError } = {}) {
  const calls = {
    charges: 0,
    auth: 0,
    subgraph: [] as Array<{ url: string; headers: Record<string, string>; body: string }>,
    fallbacks: [] as Array<{ carried: unknown; response: unknown }>,
  };
  const deps = {
    authenticator: {
      authenticate: async () => {
        calls.auth++;
        if (opts.authError) throw opts.authError;
        return { principal: apiKeyPrincipal(1), rateSubject: 'key:1' };
      },
      looksUp: () => false,
    },
    failedAuth: { guard: (_ip: unknown, run: () => Promise<unknown>) => run(), rule: { window: 300, limit: 20 } },
    operations: limits,
    limiter: {
      defaultLimit: () => 100,
      window: 60,
      consumeGrant: async () => {
        calls.charges++;
        return { allowed: true, limit: 100, remaining: 99, retryAfterSeconds: 0, ...opts.decision };
      },
    },
    principal: { secret: SECRET, ttlSeconds: 60 },
    logger,
  } as unknown as RequestContextDeps;
  const subgraphs = {
    request: async (url: string, init: { headers: Record<string, string>; body: string }) => {
      calls.subgraph.push({ url, headers: init.headers, body: init.body });
      return opts.subgraph ?? { status: 200, headers: {}, body: '{"data":{"photos":{"items":[{"key":"p1"}]}}}\n' };
    },
  } as unknown as SubgraphFetcher;
  const fallback = (req: IncomingMessage, res: ServerResponse) => {
    calls.fallbacks.push({ carried: carriedContexts.get(req), response: carriedResponses.getStore()?.response });
    res.writeHead(299).end('apollo');
  };
  const handler = singleFetchPath(
    {
      context: deps,
      plans,
      subgraphUrls: { images: 'http://images.test/graphql' },
      subgraphs,
      trustProxy: () => false,
      metrics: new ServiceMetrics('unit'),
      logger,
      bodyLimitBytes: 100_000,
    },
    fallback,
  );
  return { handler, calls };
}

async function post(handler: http.RequestListener, body: string, headers: Record<string, string> = {}) {
  const server = http.createServer(handler).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', ...headers },
      body,
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  } finally {
    server.close();
  }
}

describe('singleFetchPath', () => {
  it("answers with the subgraph's data: one charge, the signed principal and only the used variables sent, the request id echoed", async () => {
    const { handler, calls } = setup();
    const res = await post(
      handler,
      JSON.stringify({ query: GALLERY, variables: { orgId: 1, eventId: 2, unused: 'x' } }),
      { 'x-request-id': 'rq-1' },
    );
    expect(res).toMatchObject({ status: 200, text: '{"data":{"photos":{"items":[{"key":"p1"}]}}}\n' });
    expect(res.headers.get('x-request-id')).toBe('rq-1');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(calls).toMatchObject({ charges: 1, auth: 1, fallbacks: [] });
    const sent = calls.subgraph[0];
    expect(sent.url).toBe('http://images.test/graphql');
    expect(verifyPrincipal(sent.headers['x-principal'], SECRET)).toMatchObject({ kind: 'api_key', orgId: 1 });
    expect(JSON.parse(sent.body)).toEqual({
      query: expect.stringContaining('key:id'),
      operationName: 'AllPhotos__images__0',
      variables: { orgId: 1, eventId: 2 },
    });
  });

  it("tells an API key's read budget only when asked (the REST adapter charges revalidations with it)", async () => {
    const asked = await post(setup().handler, JSON.stringify({ query: GALLERY, variables: { orgId: 1, eventId: 2 } }), {
      'x-em-rate-grant': 'read',
    });
    expect(JSON.parse(asked.headers.get('x-em-rate-grant')!)).toEqual({
      window: 60,
      subject: 'key:1',
      limit: 100,
      failures: { window: 300, limit: 20, address: '127.0.0.1' },
    });
    const unasked = await post(
      setup().handler,
      JSON.stringify({ query: GALLERY, variables: { orgId: 1, eventId: 2 } }),
    );
    expect(unasked.headers.get('x-em-rate-grant')).toBeNull();
  });

  it('forwards a compiled subgraph answer marked data-only as it is, and reads an unmarked one (whose extensions Apollo drops)', async () => {
    const marked = setup({
      subgraph: { status: 200, headers: { 'x-em-data-only': '1' }, body: '{"data":{"photos":{"items":[]}}}\n' },
    });
    expect(
      (await post(marked.handler, JSON.stringify({ query: GALLERY, variables: { orgId: 1, eventId: 2 } }))).text,
    ).toBe('{"data":{"photos":{"items":[]}}}\n');
    const withExtensions = setup({
      subgraph: { status: 200, headers: {}, body: '{"data":{"photos":{"items":[]}},"extensions":{"x":1}}\n' },
    });
    expect(
      (await post(withExtensions.handler, JSON.stringify({ query: GALLERY, variables: { orgId: 1, eventId: 2 } })))
        .status,
    ).toBe(299);
  });

  it('hands an answer with a GraphQL error to Apollo with the context, the charge and the subgraph answer it already has', async () => {
    const subgraph = {
      status: 200,
      headers: {},
      body: '{"errors":[{"message":"Event not found","path":["photos"],"extensions":{"code":"NOT_FOUND"}}],"data":null}\n',
    };
    const { handler, calls } = setup({ subgraph });
    const res = await post(handler, JSON.stringify({ query: GALLERY, variables: { orgId: 1, eventId: 99 } }));
    expect(res.status).toBe(299);
    expect(calls).toMatchObject({ charges: 1, auth: 1 });
    expect(calls.fallbacks).toEqual([
      {
        carried: {
          context: expect.objectContaining({
            rateSubject: 'key:1',
            precharged: expect.objectContaining({ allowed: true }),
          }),
        },
        response: subgraph,
      },
    ]);
  });

  it('leaves variables that do not coerce to Apollo with the context, before charging', async () => {
    const { handler, calls } = setup();
    expect(
      (await post(handler, JSON.stringify({ query: GALLERY, variables: { orgId: 'one', eventId: 2 } }))).status,
    ).toBe(299);
    expect((await post(handler, JSON.stringify({ query: GALLERY, variables: { eventId: 2 } }))).status).toBe(299);
    expect(calls).toMatchObject({ charges: 0, auth: 2, subgraph: [] });
    const carried = { carried: { context: expect.objectContaining({ rateSubject: 'key:1' }) }, response: undefined };
    expect(calls.fallbacks).toEqual([carried, carried]);
  });

  it('parses and plans nothing for a caller it refuses', async () => {
    const planOf = jest.spyOn(plans, 'planOf');
    try {
      const refused = setup({ authError: new AppError('UNAUTHENTICATED', 'An API key is required') });
      const unseen = `query Unseen($orgId: Int!, $eventId: Int!) { photos(orgId: $orgId, eventId: $eventId) { items { id } } }`;
      expect(
        (await post(refused.handler, JSON.stringify({ query: unseen, variables: { orgId: 1, eventId: 2 } }))).status,
      ).toBe(299);
      expect(planOf).not.toHaveBeenCalled();
      expect(refused.calls.fallbacks[0].carried).toEqual({
        error: expect.objectContaining({ message: 'An API key is required' }),
      });
    } finally {
      planOf.mockRestore();
    }
  });

  it('leaves a query text longer than it plans to Apollo untouched: nothing authenticated, planned or held', async () => {
    const planOf = jest.spyOn(plans, 'planOf');
    try {
      const { handler, calls } = setup();
      const padded = `${GALLERY} #${'x'.repeat(FAST_PATH_MAX_QUERY_CHARS)}`;
      expect((await post(handler, JSON.stringify({ query: padded, variables: { orgId: 1, eventId: 2 } }))).status).toBe(
        299,
      );
      expect(calls).toMatchObject({
        charges: 0,
        auth: 0,
        subgraph: [],
        fallbacks: [{ carried: undefined, response: undefined }],
      });
      expect(planOf).not.toHaveBeenCalled();
    } finally {
      planOf.mockRestore();
    }
  });

  it('carries an operation over the limits to Apollo as its refusal, charged once', async () => {
    const { handler, calls } = setup();
    const aliases = `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: ping(orgId: 1, eventId: 1) { status }`).join(' ')} }`;
    expect((await post(handler, JSON.stringify({ query: aliases }))).status).toBe(299);
    expect(calls).toMatchObject({ charges: 1, auth: 1, subgraph: [] });
    expect(calls.fallbacks[0].carried).toEqual({
      error: expect.objectContaining({
        message: expect.stringContaining('The operation is too large'),
        extensions: expect.objectContaining({ code: 'BAD_REQUEST' }),
      }),
    });
  });

  it("carries a refused credential's error to Apollo, and a spent budget's decision, without calling the subgraph", async () => {
    const refused = setup({ authError: new AppError('FORBIDDEN', 'The API key is invalid') });
    expect(
      (await post(refused.handler, JSON.stringify({ query: GALLERY, variables: { orgId: 1, eventId: 2 } }))).status,
    ).toBe(299);
    expect(refused.calls.fallbacks[0].carried).toEqual({
      error: expect.objectContaining({
        message: 'The API key is invalid',
        extensions: expect.objectContaining({ code: 'FORBIDDEN' }),
      }),
    });
    expect(refused.calls).toMatchObject({ charges: 0, subgraph: [] });

    const spent = setup({ decision: { allowed: false, remaining: 0, retryAfterSeconds: 7 } });
    expect(
      (await post(spent.handler, JSON.stringify({ query: GALLERY, variables: { orgId: 1, eventId: 2 } }))).status,
    ).toBe(299);
    expect(spent.calls.fallbacks[0].carried).toEqual({
      context: expect.objectContaining({
        precharged: expect.objectContaining({ allowed: false, retryAfterSeconds: 7 }),
      }),
    });
    expect(spent.calls).toMatchObject({ charges: 1, subgraph: [] });
  });

  it('leaves other operations to Apollo with the context it built, uncharged', async () => {
    const { handler, calls } = setup();
    expect(
      (await post(handler, JSON.stringify({ query: 'mutation { goLive(orgId: 1, eventId: 1) { published } }' })))
        .status,
    ).toBe(299);
    expect(calls).toMatchObject({
      charges: 0,
      auth: 1,
      subgraph: [],
      fallbacks: [{ carried: { context: expect.objectContaining({ rateSubject: 'key:1' }) } }],
    });
  });

  it('leaves other request shapes to Apollo untouched, and answers a body that is not JSON as the body parser would', async () => {
    const { handler, calls } = setup();
    for (const body of [
      { query: GALLERY, variables: { orgId: 1, eventId: 2 }, extensions: { persistedQuery: {} } },
      [{ query: GALLERY }],
    ]) {
      expect((await post(handler, JSON.stringify(body))).status).toBe(299);
    }
    expect((await post(handler, '{"query":', {})).text).toBe(
      '{"errors":[{"message":"The request body is not valid JSON","extensions":{"code":"BAD_REQUEST"}}]}',
    );
    expect(
      (await post(handler, JSON.stringify({ query: GALLERY }), { 'content-type': 'application/json; charset=latin1' }))
        .status,
    ).toBe(299);
    expect(calls).toMatchObject({ charges: 0, auth: 0, subgraph: [] });
  });
});
