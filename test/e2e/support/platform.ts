import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { connectRedis, ContentVersions, loadConfig, normaliseBib, REPO_ROOT } from '@em/core';
import { openDatabase, Orm } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { administrationServices, AdministrationServices, PLATFORM_OPERATOR } from '@em/subgraph-events';
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

export const info: PlatformInfo = {
  ...JSON.parse(readFileSync(process.env.E2E_PLATFORM_INFO!, 'utf8')),
  ports: JSON.parse(process.env.E2E_PORTS!),
};
export const API = `${info.restUrl}/api/v1/ext`;
export const cfg = loadConfig({ ...process.env, ...info.env });

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
}

export type RestCall = (
  path: string,
  opts?: {
    key?: string | null;
    method?: string;
    headers?: Record<string, string>;
    body?: string | FormData;
    timeoutMs?: number;
  },
) => Promise<ApiResponse>;

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
    const res = await fetch(url, {
      method: opts.method ?? 'GET',
      headers,
      body: opts.body,
      signal: opts.timeoutMs ? AbortSignal.timeout(opts.timeoutMs) : undefined,
    });
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
export function postForm(
  path: string,
  key: string | null,
  file: Buffer | null,
  fields: Record<string, string> = {},
  fileName = 'selfie.jpg',
): Promise<ApiResponse> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append('file', new Blob([new Uint8Array(file)], { type: 'image/jpeg' }), fileName);
  return api(path, { key, method: 'POST', body: form });
}

/** A POST with a JSON body. */
export function postJson(path: string, key: string | null, body: unknown): Promise<ApiResponse> {
  return api(path, {
    key,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A GraphQL call to the gateway. */
export async function gql(
  query: string,
  variables: Record<string, unknown> = {},
  key: string | null = info.demo.apiKey,
  url = info.gatewayUrl,
) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers['x-api-key'] = key;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return {
    status: res.status,
    body: (await res.json()) as { data?: any; errors?: Array<{ message: string; extensions?: { code?: string } }> },
  };
}

/** Asserts the envelope of an error with its status. */
export function expectError(res: ApiResponse, status: number): void {
  expect({
    status: res.status,
    responseType: res.body?.responseType,
    data: res.body?.data,
    hasMessage: typeof res.body?.message === 'string',
  }).toEqual({
    status,
    responseType: 'error',
    data: null,
    hasMessage: true,
  });
}

export function expectSuccess(res: ApiResponse): any {
  expect({ status: res.status, responseType: res.body?.responseType }).toEqual({
    status: 200,
    responseType: 'success',
  });
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
  const opened = [...administrations.values()];
  administrations.clear();
  for (const admin of opened) await (await admin).orm.close();
  redis?.disconnect();
  redis = undefined;
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

let redis: ReturnType<typeof connectRedis> | undefined;
const fixtureRedis = () => (redis ??= connectRedis(cfg.REDIS_URL));

/**
 * Records a change of what participants read of the event, as the services do: for test data
 * written with SQL (photos, their BIBs), so that the platform's ETags and caches see it.
 */
export async function bumpContentVersion(eventId: number, databaseUrl = cfg.DATABASE_URL): Promise<void> {
  const { repos } = await administrationOf(databaseUrl);
  await new ContentVersions(repos.events, databaseUrl === cfg.DATABASE_URL ? fixtureRedis() : null).bumpContentVersion(
    eventId,
  );
}

const administrations = new Map<string, Promise<{ orm: Orm; services: AdministrationServices }>>();

/** The administration services on a platform's database (opened on first use, closed by closeDb). */
export function administrationOf(databaseUrl = cfg.DATABASE_URL): Promise<AdministrationServices> {
  let opened = administrations.get(databaseUrl);
  if (!opened) {
    opened = openDatabase({ DATABASE_URL: databaseUrl, DATABASE_POOL_MAX: 2 }).then((orm) => ({
      orm,
      services: administrationServices({
        // A fresh unit of work per call: tests share no identity map with the platform's writes.
        em: () => orm.em.fork(),
        store,
        jobs: () => {
          throw new Error('fixtures queue no jobs');
        },
        // Test data: suites add keys to the demo organisation beyond the platform's limit.
        maxApiKeysPerOrganisation: 1_000_000,
        // Content versions reach the test platform's readers; another platform's database has no reader here.
        redis: databaseUrl === cfg.DATABASE_URL ? fixtureRedis() : null,
      }),
    }));
    administrations.set(databaseUrl, opened);
  }
  return opened.then((a) => a.services);
}

const localDateTime = (d: Date) => d.toISOString().slice(0, 19);

/**
 * Test data: organisations, keys and events through the administration services (as an organiser
 * would create them), photos with SQL through `run`; on the test platform's database unless another is given.
 */
export function fixturesOn(
  run: <T = any>(text: string, params?: unknown[]) => Promise<T[]>,
  databaseUrl = cfg.DATABASE_URL,
) {
  const admin = () => administrationOf(databaseUrl);
  const fixtures = {
    async organisation(name = `Org ${randomUUID().slice(0, 8)}`): Promise<{ orgId: number; key: string }> {
      const org = await (await admin()).organisations.create(PLATFORM_OPERATOR, { name, slug: `org-${randomUUID()}` });
      return { orgId: org.id, key: await fixtures.apiKey(org.id) };
    },

    async apiKey(
      orgId: number,
      opts: {
        active?: boolean;
        allowedHosts?: string[];
        rateLimit?: number;
        readOnly?: boolean;
        eventIds?: number[];
      } = {},
    ): Promise<string> {
      const services = await admin();
      const { apiKey, rawKey } = await services.keyService.create(orgId, {
        name: 'test key',
        allowedHosts: opts.allowedHosts,
        rateLimit: opts.rateLimit ?? null,
        readOnly: opts.readOnly,
        eventIds: opts.eventIds,
      });
      if (opts.active === false) await services.keyService.setActive(orgId, apiKey.id, false);
      return rawKey;
    },

    async event(orgId: number, flags: EventFlags = {}): Promise<number> {
      const { videoSelfieClipping, eventDate, ...rest } = flags;
      // Selfie clipping is switched on with video search; a test that wants it stored with video search off turns that off after.
      const videoOffAfter = videoSelfieClipping === true && rest.videoSearch === false;
      const services = await admin();
      const event = await services.eventAdmin.create(PLATFORM_OPERATOR, orgId, {
        name: `Event ${randomUUID().slice(0, 6)}`,
        slug: `event-${randomUUID()}`,
        status: 'active',
        bibSearch: true,
        selfieSearch: true,
        timelineSearch: true,
        ...rest,
        ...(videoOffAfter ? { videoSearch: true } : {}),
        ...(videoSelfieClipping !== undefined ? { videoSelfieSearch: videoSelfieClipping } : {}),
        ...(eventDate !== undefined ? { eventDate: eventDate && localDateTime(eventDate) } : {}),
      });
      if (videoOffAfter) await services.eventAdmin.update(PLATFORM_OPERATOR, orgId, event.id, { videoSearch: false });
      return event.id;
    },

    /** Published photos with the given capture times (null = untimed) and BIBs. */
    async photos(
      eventId: number,
      specs: Array<{ capturedAt: Date | null; bibs?: string[]; published?: boolean }>,
    ): Promise<string[]> {
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
          await run('insert into photo_bibs (photo_id, event_id, bib, confidence) values ($1, $2, $3, 0.9)', [
            id,
            eventId,
            normaliseBib(bib),
          ]);
        }
        ids.push(id);
      }
      await bumpContentVersion(eventId, databaseUrl);
      return ids;
    },
  };
  return fixtures;
}

export const fixtures = fixturesOn(sql);

/** The test identity provider (its JWKS is served by the global setup). */
const idp: { issuer: string; audience: string; privateJwk: JWK } = JSON.parse(
  readFileSync(process.env.E2E_IDP!, 'utf8'),
);

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

/** An account with memberships: `[orgId, role, status]` (through the repositories of the administration). */
export async function account(
  email: string,
  memberships: Array<[number, 'admin' | 'user', ('active' | 'pending')?]> = [],
  active = true,
): Promise<number> {
  const { repos } = await administrationOf();
  const created = await repos.accounts.findOrCreate(email);
  if (!active) await repos.accounts.setActive(created.id, false);
  for (const [orgId, role, status] of memberships)
    await repos.memberships.upsert(orgId, created.id, role, status ?? 'active');
  return created.id;
}

/** Polls the pipeline status until nothing is queued or processing; returns the last status. */
export async function waitForPipeline(
  base: string,
  key: string,
  timeoutMs = 180_000,
  call: RestCall = api,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = expectSuccess(await call(`${base}/pipeline/photos/status`, { key }));
    if (status.queued === 0 && status.processing === 0) return status;
    if (Date.now() > deadline) throw new Error(`pipeline not done: ${JSON.stringify(status)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Runs the organiser CLI against the test platform; resolves its standard output, rejects with its output on failure. */
export function runCli(...args: string[]): Promise<string> {
  return new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [path.join(REPO_ROOT, 'scripts/cli/dist/cli.js'), ...args],
      { env: { ...process.env, ...info.env } },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stdout}\n${stderr}`)) : resolve(stdout)),
    ),
  );
}
