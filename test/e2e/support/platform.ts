import { readFileSync } from 'node:fs';
import { generateApiKey, loadConfig, normaliseBib } from '@em/core';
import { ObjectStore } from '@em/core/storage';
import type { JWK } from 'jose';
import { Pool } from 'pg';
import { randomUUID } from 'node:crypto';
import { OpenApiContract } from './openapi';

export interface PlatformInfo {
  restUrl: string;
  gatewayUrl: string;
  env: Record<string, string>;
  demo: { orgId: number; eventId: number; apiKey: string; browserKey: string; selfieFile: string | null };
  /** The subgraphs' ports. */
  ports: Record<'events' | 'images' | 'search' | 'media', number>;
}

export const info: PlatformInfo = { ...JSON.parse(readFileSync(process.env.E2E_PLATFORM_INFO!, 'utf8')), ports: JSON.parse(process.env.E2E_PORTS!) };
export const API = `${info.restUrl}/api/v1/ext`;
export const cfg = loadConfig({ ...process.env, ...info.env });

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
}

export type RestCall = (path: string, opts?: { key?: string | null; method?: string; headers?: Record<string, string>; body?: string | FormData; timeoutMs?: number }) => Promise<ApiResponse>;

/**
 * REST calls to the platform at `restUrl` as a client makes them (`defaultKey` unless `key` is
 * given; null sends none); every answer is checked against the OpenAPI document that platform serves.
 */
export function restClient(restUrl: string, defaultKey: string | null): RestCall {
  let contract: Promise<OpenApiContract> | undefined;
  return async (path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? defaultKey : opts.key;
    if (key) headers['x-api-key'] = key;
    const url = `${restUrl}/api/v1/ext${path}`;
    const res = await fetch(url, { method: opts.method ?? 'GET', headers, body: opts.body, signal: opts.timeoutMs ? AbortSignal.timeout(opts.timeoutMs) : undefined });
    const text = await res.text();
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    contract ??= OpenApiContract.load(restUrl);
    (await contract).check(opts.method ?? 'GET', new URL(url).pathname, res.status, body);
    return { status: res.status, headers: res.headers, body };
  };
}

/** A REST call to the test platform (the demo key unless `key` is given). */
export const api: RestCall = restClient(info.restUrl, info.demo.apiKey);

/** A POST of a multipart form: `file` (a Buffer, or omitted when null) and text fields. */
export function postForm(path: string, key: string | null, file: Buffer | null, fields: Record<string, string> = {}, fileName = 'selfie.jpg'): Promise<ApiResponse> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append('file', new Blob([file], { type: 'image/jpeg' }), fileName);
  return api(path, { key, method: 'POST', body: form });
}

/** A POST with a JSON body. */
export function postJson(path: string, key: string | null, body: unknown): Promise<ApiResponse> {
  return api(path, { key, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** A GraphQL call to the gateway. */
export async function gql(query: string, variables: Record<string, unknown> = {}, key: string | null = info.demo.apiKey, url = info.gatewayUrl) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers['x-api-key'] = key;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: (await res.json()) as { data?: any; errors?: Array<{ message: string; extensions?: { code?: string } }> } };
}

/** Asserts the envelope of an error with its status. */
export function expectError(res: ApiResponse, status: number): void {
  expect({ status: res.status, responseType: res.body?.responseType, data: res.body?.data, hasMessage: typeof res.body?.message === 'string' }).toEqual({
    status,
    responseType: 'error',
    data: null,
    hasMessage: true,
  });
}

export function expectSuccess(res: ApiResponse): any {
  expect({ status: res.status, responseType: res.body?.responseType }).toEqual({ status: 200, responseType: 'success' });
  expect(typeof res.body.message).toBe('string');
  return res.body.data;
}

let pool: Pool | undefined;
/** SQL on the platform's database (test data is written directly; the pipeline has its own tests). */
export async function sql<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
  pool ??= new Pool({ connectionString: cfg.DATABASE_URL, max: 2 });
  return (await pool.query(text, params)).rows as T[];
}
export async function closeDb(): Promise<void> {
  await pool?.end();
  pool = undefined;
}

export const store = new ObjectStore(cfg);

export interface EventFlags {
  bibSearch?: boolean;
  selfieSearch?: boolean;
  nameSearch?: boolean;
  timelineSearch?: boolean;
  videoSearch?: boolean;
  videoSelfieClipping?: boolean;
  enabled?: boolean;
  status?: string;
  eventDate?: Date | null;
  name?: string;
}

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Test data written with SQL through `run` (the test platform's database unless another is given). */
export function fixturesOn(run: <T = any>(text: string, params?: unknown[]) => Promise<T[]>) {
  const fixtures = {
    async organisation(name = `Org ${randomUUID().slice(0, 8)}`): Promise<{ orgId: number; key: string }> {
      const [org] = await run<{ id: number }>('insert into organisations (name, slug) values ($1, $2) returning id', [name, `org-${randomUUID()}`]);
      return { orgId: org.id, key: await fixtures.apiKey(org.id) };
    },

    async apiKey(orgId: number, opts: { active?: boolean; allowedHosts?: string[]; rateLimit?: number } = {}): Promise<string> {
      const generated = generateApiKey();
      await run('insert into api_keys (organisation_id, name, prefix, key_hash, active, allowed_hosts, rate_limit) values ($1, $2, $3, $4, $5, $6, $7)', [
        orgId,
        'test key',
        generated.displayPrefix,
        generated.keyHash,
        opts.active ?? true,
        opts.allowedHosts ?? [],
        opts.rateLimit ?? null,
      ]);
      return generated.rawKey;
    },

    async event(orgId: number, flags: EventFlags = {}): Promise<number> {
      const values: Record<string, unknown> = {
        organisation_id: orgId,
        name: flags.name ?? `Event ${randomUUID().slice(0, 6)}`,
        slug: `event-${randomUUID()}`,
        status: 'active',
        bib_search: true,
        selfie_search: true,
        timeline_search: true,
      };
      for (const [k, v] of Object.entries(flags)) if (k !== 'name') values[snake(k)] = v;
      const cols = Object.keys(values);
      const [row] = await run<{ id: number }>(
        `insert into events (${cols.join(', ')}) values (${cols.map((_, i) => `$${i + 1}`).join(', ')}) returning id`,
        Object.values(values),
      );
      return row.id;
    },

    /** Published photos with the given capture times (null = untimed) and BIBs. */
    async photos(eventId: number, specs: Array<{ capturedAt: Date | null; bibs?: string[]; published?: boolean }>): Promise<string[]> {
      const ids: string[] = [];
      for (const spec of specs) {
        const id = randomUUID();
        await run(
          `insert into photos (id, event_id, status, content_hash, original_key, original_file_name, mime_type, width, height,
                               large_key, large_width, large_height, thumbnail_key, captured_at, photographer_name, source, published_at)
           values ($1, $2, 'processed', $3, $4, $5, 'image/jpeg', 3000, 2000, $6, 1600, 1067, $7, $8, 'Test Photographer', 'test', $9)`,
          [
            id,
            eventId,
            `hash-${id}`,
            `originals/${eventId}/${id}.jpg`,
            `IMG_${id.slice(0, 4)}.jpg`,
            `public/${eventId}/large/${id}.jpg`,
            `public/${eventId}/thumb/${id}.jpg`,
            spec.capturedAt,
            spec.published === false ? null : new Date(),
          ],
        );
        for (const bib of spec.bibs ?? []) {
          await run('insert into photo_bibs (photo_id, event_id, bib, confidence) values ($1, $2, $3, 0.9)', [id, eventId, normaliseBib(bib)]);
        }
        ids.push(id);
      }
      return ids;
    },
  };
  return fixtures;
}

export const fixtures = fixturesOn(sql);

/** The test identity provider (its JWKS is served by the global setup). */
const idp: { issuer: string; audience: string; privateJwk: JWK } = JSON.parse(readFileSync(process.env.E2E_IDP!, 'utf8'));

/** An access token as the identity provider issues it; every claim can be overridden for the error cases. */
export async function accessToken(
  opts: {
    subject: string;
    email?: string;
    /** `email_verified` (true unless given; undefined leaves the claim out). */
    emailVerified?: boolean | undefined;
    scopes?: string[];
    /** Seconds to expiry; null leaves `exp` out. */
    expiresIn?: number | null;
    issuer?: string;
    audience?: string;
    key?: JWK;
  } = { subject: 'x' },
): Promise<string> {
  const { SignJWT, importJWK } = await import('jose');
  const key = await importJWK(opts.key ?? idp.privateJwk, 'ES256');
  const now = Math.floor(Date.now() / 1000);
  const verified = 'emailVerified' in opts ? opts.emailVerified : true;
  const jwt = new SignJWT({
    scope: (opts.scopes ?? ['events:read']).join(' '),
    ...(opts.email ? { email: opts.email } : {}),
    ...(opts.email && verified !== undefined ? { email_verified: verified } : {}),
  })
    .setProtectedHeader({ alg: 'ES256', kid: 'test-idp-1' })
    .setIssuer(opts.issuer ?? idp.issuer)
    .setAudience(opts.audience ?? idp.audience)
    .setSubject(opts.subject)
    .setIssuedAt(now - 10);
  if (opts.expiresIn !== null) jwt.setExpirationTime(now + (opts.expiresIn ?? 600));
  return jwt.sign(key);
}

/** An account with memberships: `[orgId, role, status]`. */
export async function account(email: string, memberships: Array<[number, 'admin' | 'user', ('active' | 'pending')?]> = [], active = true): Promise<number> {
  const [row] = await sql<{ id: number }>('insert into accounts (email, active) values ($1, $2) returning id', [email, active]);
  for (const [orgId, role, status] of memberships) {
    await sql('insert into memberships (organisation_id, account_id, role, status) values ($1, $2, $3, $4)', [orgId, row.id, role, status ?? 'active']);
  }
  return row.id;
}

/** Polls the pipeline status until nothing is queued or processing; returns the last status. */
export async function waitForPipeline(base: string, key: string, timeoutMs = 180_000, call: RestCall = api): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = expectSuccess(await call(`${base}/pipeline/photos/status`, { key }));
    if (status.queued === 0 && status.processing === 0) return status;
    if (Date.now() > deadline) throw new Error(`pipeline not done: ${JSON.stringify(status)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}
