import { REPO_ROOT, signPrincipal, Principal } from '@em/core';
import { freePort } from '@em/platform';
import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { Pool } from 'pg';
import {
  accessToken,
  account,
  api,
  ApiResponse,
  cfg,
  closeDb,
  expectError,
  expectSuccess,
  fixtures,
  info,
  postForm,
  postJson,
  sql,
} from '../support/platform';

const bearer = (token: string) => ({ key: null, headers: { authorization: `Bearer ${token}` } });
const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.org`;

/** A GET to `url` from a chosen local address (loopback has the whole 127.0.0.0/8). */
function getFrom(
  localAddress: string,
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { localAddress, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Runs a service's built entry point (or, for '-', the script in env.SCRIPT) with exactly `env` (plus PATH); resolves when it exits or after `ms`. */
function runService(
  entry: string,
  env: Record<string, string>,
  ms: number,
): Promise<{ code: number | null; output: string; exited: boolean }> {
  return new Promise((resolve) => {
    const args = entry === '-' ? ['-e', env.SCRIPT] : [path.join(REPO_ROOT, entry)];
    const child: ChildProcess = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (c) => (output += c));
    child.stderr!.on('data', (c) => (output += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, output, exited: signal === null });
    });
  });
}

/** A GraphQL call straight to a subgraph, with a principal signed by the platform's secret. */
async function subgraph(port: number, principal: Principal, query: string, variables: Record<string, unknown>) {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-principal': signPrincipal(principal, cfg.PRINCIPAL_SECRET!, 60) },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: any; errors?: unknown[] };
}

afterAll(closeDb);

describe('security: authentication and tenancy', () => {
  it('#5 IP allowlist: an IP entry is matched on the client address only, never on a forged Origin/Referer or X-Forwarded-For', async () => {
    const org = await fixtures.organisation();
    const eventId = await fixtures.event(org.orgId);
    const ipOnly = await fixtures.apiKey(org.orgId, { allowedHosts: ['203.0.113.9'] });
    const mixed = await fixtures.apiKey(org.orgId, { allowedHosts: ['203.0.113.9', 'photos.example.org'] });
    const details = `/${org.orgId}/event/${eventId}/details`;

    // Forged Origin/Referer naming the allowed IP: refused, through the adapter and at the gateway itself.
    expectError(await api(details, { key: ipOnly, headers: { origin: 'http://203.0.113.9' } }), 403);
    expectError(await api(details, { key: ipOnly, headers: { referer: 'http://203.0.113.9/page' } }), 403);
    expectError(await api(details, { key: mixed, headers: { origin: 'http://203.0.113.9:8080' } }), 403);
    const direct = await fetch(info.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ipOnly, origin: 'http://203.0.113.9' },
      body: JSON.stringify({ query: `{ event(orgId: ${org.orgId}, eventId: ${eventId}) { id } }` }),
    });
    expect((await direct.json()).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    // A mixed list: the client IP matches the IP entry, or the site matches the hostname entry.
    expect(
      (
        await api(details, {
          key: mixed,
          headers: { 'x-forwarded-for': '203.0.113.9', origin: 'https://evil.example' },
        })
      ).status,
    ).toBe(200);
    expect((await api(details, { key: mixed, headers: { origin: 'https://photos.example.org' } })).status).toBe(200);
    expectError(await api(details, { key: mixed, headers: { origin: 'https://evil.example' } }), 403);

    // A REST adapter that trusts only 127.0.0.1 as a proxy: a client on 127.0.0.2 cannot name its own address.
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'em-sec-adapter-'));
    const adapter = spawn(process.execPath, [path.join(REPO_ROOT, 'rest-adapter/dist/main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: dataDir,
        GATEWAY_URL: info.gatewayUrl,
        REST_PORT: String(port),
        REST_HOST: '127.0.0.1',
        TRUST_PROXY: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    try {
      const url = `http://127.0.0.1:${port}/api/v1/ext${details}`;
      const deadline = Date.now() + 30_000;
      for (;;) {
        try {
          await getFrom('127.0.0.1', `http://127.0.0.1:${port}/health/live`, {});
          break;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      const forged = await getFrom('127.0.0.2', url, { 'x-api-key': ipOnly, 'x-forwarded-for': '203.0.113.9' });
      expect(forged.status).toBe(403);
      // Through the trusted proxy (127.0.0.1) the forwarded address is believed.
      expect((await getFrom('127.0.0.1', url, { 'x-api-key': ipOnly, 'x-forwarded-for': '203.0.113.9' })).status).toBe(
        200,
      );
    } finally {
      adapter.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('#3 a REST adapter on its defaults trusts no X-Forwarded-For and listens on 127.0.0.1 only', async () => {
    const org = await fixtures.organisation();
    const eventId = await fixtures.event(org.orgId);
    const ipOnly = await fixtures.apiKey(org.orgId, { allowedHosts: ['203.0.113.9'] });
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'em-sec-adapter-'));
    // No TRUST_PROXY and no REST_HOST: what `npm start` gives the adapter unless told otherwise.
    const adapter = spawn(process.execPath, [path.join(REPO_ROOT, 'rest-adapter/dist/main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: dataDir,
        GATEWAY_URL: info.gatewayUrl,
        REST_PORT: String(port),
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    try {
      const url = `http://127.0.0.1:${port}/api/v1/ext/${org.orgId}/event/${eventId}/details`;
      const deadline = Date.now() + 30_000;
      for (;;) {
        try {
          await getFrom('127.0.0.1', `http://127.0.0.1:${port}/health/live`, {});
          break;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      // Even from loopback, a client cannot name its own address.
      expect((await getFrom('127.0.0.1', url, { 'x-api-key': ipOnly, 'x-forwarded-for': '203.0.113.9' })).status).toBe(
        403,
      );
      expect((await getFrom('127.0.0.2', url, { 'x-api-key': ipOnly, 'x-forwarded-for': '203.0.113.9' })).status).toBe(
        403,
      );
      // The listening socket is bound to 127.0.0.1 (0100007F in /proc/net/tcp), not to every interface.
      const portHex = port.toString(16).toUpperCase().padStart(4, '0');
      const listening = readFileSync('/proc/net/tcp', 'utf8')
        .split('\n')
        .map((l) => l.trim().split(/\s+/))
        .filter((f) => f[3] === '0A' && f[1]?.endsWith(`:${portHex}`))
        .map((f) => f[1]);
      expect(listening).toEqual([`0100007F:${portHex}`]);
    } finally {
      adapter.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('#7 OAuth: an unverified e-mail never links an account (403), and a token without exp is a 401', async () => {
    const email = unique('victim');
    await account(email, []);
    const attacker = `idp|attacker-${randomUUID()}`;
    for (const emailVerified of [undefined, false]) {
      const refused = await api('/account', bearer(await accessToken({ subject: attacker, email, emailVerified })));
      expectError(refused, 403);
      expect(refused.body.message).toMatch(/verified/i);
    }
    // The subject was not linked by the refused attempts: the account is still free for its owner.
    const [row] = await sql('select subject from accounts where email = $1', [email]);
    expect(row.subject).toBeNull();
    const owner = `idp|owner-${randomUUID()}`;
    expectSuccess(await api('/account', bearer(await accessToken({ subject: owner, email, emailVerified: true }))));
    // Once linked, the subject alone signs in, whatever the e-mail claim says.
    expectSuccess(await api('/account', bearer(await accessToken({ subject: owner, email, emailVerified: false }))));

    const noExp = await api('/account', bearer(await accessToken({ subject: owner, email, expiresIn: null })));
    expectError(noExp, 401);
    expect(noExp.body.message).toMatch(/exp/i);
  });

  it('#8 principal secret: no service starts without PRINCIPAL_SECRET', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'em-sec-nosecret-'));
    try {
      const env = {
        DATA_DIR: dataDir,
        DATABASE_URL: cfg.DATABASE_URL,
        REDIS_URL: cfg.REDIS_URL,
        LOG_LEVEL: 'info',
        EVENTS_PORT: '0',
        IMAGES_PORT: '0',
        SEARCH_PORT: '0',
        MEDIA_PORT: '0',
        GATEWAY_PORT: '0',
      };
      const entries = ['subgraphs/events', 'subgraphs/images', 'subgraphs/search', 'subgraphs/media', 'gateway'].map(
        (dir) => `${dir}/dist/main.js`,
      );
      // Five processes load at once: on a slow or busy machine that takes far longer than the refusal itself.
      const results = await Promise.all(entries.map((entry) => runService(entry, env, 120_000)));
      for (const [i, result] of results.entries()) {
        expect({ entry: entries[i], exited: result.exited, failed: result.code !== 0 }).toEqual({
          entry: entries[i],
          exited: true,
          failed: true,
        });
        expect(result.output).toMatch(/PRINCIPAL_SECRET is not set/);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);

  it("#8 federation: _entities answers only entities of the principal's organisations", async () => {
    const a = await fixtures.organisation();
    const b = await fixtures.organisation();
    const eventId = await fixtures.event(a.orgId);
    const [photoId] = await fixtures.photos(eventId, [{ capturedAt: new Date('2026-05-17T09:00:00Z') }]);
    const keyOf = (orgId: number): Principal => ({ kind: 'api_key', orgId, apiKeyId: 1, scopes: [] });
    const member = (orgId: number, scopes: string[]): Principal => ({
      kind: 'account',
      orgId: null,
      accountId: 1,
      orgRoles: { [orgId]: 'user' },
      scopes,
    });

    const photoQuery =
      'query($r: [_Any!]!) { _entities(representations: $r) { ... on Photo { id eventId largeUrl } } }';
    const photoRef = { r: [{ __typename: 'Photo', id: photoId }] };
    expect((await subgraph(info.ports.images, keyOf(a.orgId), photoQuery, photoRef)).data?._entities).toEqual([
      expect.objectContaining({ id: photoId }),
    ]);
    expect(
      (await subgraph(info.ports.images, member(a.orgId, ['events:read']), photoQuery, photoRef)).data?._entities,
    ).toEqual([expect.objectContaining({ id: photoId })]);
    for (const stranger of [keyOf(b.orgId), member(b.orgId, ['events:read']), member(a.orgId, [])]) {
      const answer = await subgraph(info.ports.images, stranger, photoQuery, photoRef);
      expect(answer.data?._entities ?? [null]).toEqual([null]);
    }

    const eventQuery = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Event { id name orgId } } }';
    const eventRef = { r: [{ __typename: 'Event', id: eventId }] };
    expect((await subgraph(info.ports.events, keyOf(a.orgId), eventQuery, eventRef)).data?._entities).toEqual([
      expect.objectContaining({ id: eventId, orgId: a.orgId }),
    ]);
    const foreign = await subgraph(info.ports.events, keyOf(b.orgId), eventQuery, eventRef);
    expect(JSON.stringify(foreign)).not.toContain('"name"');
    expect(foreign.data?._entities ?? [null]).toEqual([null]);
  });

  it('#12 request_id: a foreign id answers as an unknown one (never 409), and ids are per event', async () => {
    const flags = { selfieSearch: true, videoSearch: true, videoSelfieClipping: true };
    const a = await fixtures.organisation();
    const eventA = await fixtures.event(a.orgId, flags);
    const eventA2 = await fixtures.event(a.orgId, flags);
    const b = await fixtures.organisation();
    const eventB = await fixtures.event(b.orgId, flags);
    const [photoId] = await fixtures.photos(eventA, [{ capturedAt: new Date('2026-05-17T09:00:00Z') }]);
    // A stored search and clipping request of organisation A's first event.
    const id = randomUUID();
    await sql(
      `insert into face_searches (request_id, organisation_id, event_id, matches, faces_found) values ($1, $2, $3, $4::jsonb, 1)`,
      [id, a.orgId, eventA, JSON.stringify([{ photoId, confidence: 91 }])],
    );
    await sql(
      `insert into clip_requests (request_id, event_id, organisation_id, status) values ($1, $2, $3, 'no_matches')`,
      [id, eventA, a.orgId],
    );
    const blank = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#3a6' } })
      .jpeg()
      .toBuffer();

    for (const [orgId, eventId, key] of [
      [b.orgId, eventB, b.key],
      [a.orgId, eventA2, a.key],
    ] as const) {
      const base = `/${orgId}/event/${eventId}`;
      // Uses of the id that read a stored record: exactly as an unknown id.
      const unknown = randomUUID();
      const same = async (call: (rid: string) => Promise<ApiResponse>, status: number) => {
        for (const rid of [unknown, id]) expectError(await call(rid), status);
      };
      await same((rid) => api(`${base}/faces/${rid}`, { key }), 404);
      await same((rid) => api(`${base}/video-clipping/${rid}`, { key }), 404);
      await same((rid) => postJson(`${base}/original-photos`, key, { method: 'selfie', identifier: rid }), 404);
      // The spec's answer to "a request_id alone without a face search in this event" is 400, for any such id.
      await same((rid) => postForm(`${base}/video-clipping/search-by-selfie`, key, null, { request_id: rid }), 400);

      // Uses that create: a fresh search and a fresh clipping request of this event under the same id.
      const search = expectSuccess(await postForm(`${base}/faces`, key, blank, { request_id: id }));
      expect(search).toEqual(expect.objectContaining({ request_id: id, images: [] }));
      expect(expectSuccess(await api(`${base}/faces/${id}`, { key })).images).toEqual([]);
      const clip = expectSuccess(
        await postForm(`${base}/video-clipping/search-by-selfie`, key, blank, { request_id: id }),
      );
      expect(clip).toEqual({ request_id: id, status: 'no_matches' });
    }
    // Organisation A's first event still has its own result.
    const own = expectSuccess(await api(`/${a.orgId}/event/${eventA}/faces/${id}`, { key: a.key }));
    expect(own.images.map((i: { image_id: string }) => i.image_id)).toEqual([photoId]);
    expect(expectSuccess(await api(`/${a.orgId}/event/${eventA}/video-clipping/${id}`, { key: a.key })).status).toBe(
      'no_matches',
    );
    const rows = await sql('select event_id from face_searches where request_id = $1 order by event_id', [id]);
    expect(rows.map((r) => r.event_id)).toEqual([eventA, eventA2, eventB].sort((x, y) => x - y));
  }, 120_000);

  it('#12 request_id per event: the migration keeps existing searches, clipping requests and their clips', async () => {
    const name = `em_migration_${randomUUID().slice(0, 8)}`;
    await sql(`create database ${name}`);
    const url = new URL(cfg.DATABASE_URL);
    url.pathname = `/${name}`;
    const pool = new Pool({ connectionString: url.toString(), max: 1 });
    const run = async <T = any>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as T[];
    // MikroORM's migrator in its own process (as scripts/migrate/ does): up to the release before, then the rest.
    const migrate = async (to?: string) => {
      const script = `require('@em/core/data').openDatabase({ DATABASE_URL: process.env.DATABASE_URL, DATABASE_POOL_MAX: 1 })
        .then(async (orm) => { const done = await require('@em/core/migrate').migrateDatabase(orm, { to: process.env.TO }); console.log(JSON.stringify(done)); await orm.close(); })
        .catch((err) => { console.error(err); process.exit(1); });`;
      const result = await runService(
        '-',
        { DATABASE_URL: url.toString(), DATA_DIR: os.tmpdir(), ...(to ? { TO: to } : {}), SCRIPT: script },
        60_000,
      );
      expect(result.code).toBe(0);
      return result.output;
    };
    try {
      await migrate('Migration20261122VideoClipping');
      // The schema of the release before: the services (today's entities) cannot write it, so plain SQL.
      const [{ id: orgId }] = await run<{ id: number }>(
        `insert into organisations (name, slug) values ('Old', $1) returning id`,
        [`old-${randomUUID()}`],
      );
      const newEvent = async () =>
        (
          await run<{ id: number }>(
            `insert into events (organisation_id, name, slug) values ($1, 'E', $2) returning id`,
            [orgId, `e-${randomUUID()}`],
          )
        )[0].id;
      const eventId = await newEvent();
      const otherEvent = await newEvent();
      const rid = randomUUID();
      const videoId = randomUUID();
      const clipId = randomUUID();
      await run(
        `insert into face_searches (request_id, organisation_id, event_id, matches) values ($1, $2, $3, '[]'::jsonb)`,
        [rid, orgId, eventId],
      );
      await run(
        `insert into clip_requests (request_id, event_id, organisation_id, status) values ($1, $2, $3, 'completed')`,
        [rid, eventId, orgId],
      );
      await run(
        `insert into videos (id, event_id, source_key, storage_key, original_file_name) values ($1, $2, 'cam', 'videos/x.mp4', 'x.mp4')`,
        [videoId, eventId],
      );
      await run(
        `insert into clips (id, clip_request_request_id, video_id, start_seconds, end_seconds, storage_key) values ($1, $2, $3, 1, 2, 'public/x.mp4')`,
        [clipId, rid, videoId],
      );

      expect(await migrate()).toContain('Migration20261123RequestIdPerEvent');

      expect(await run('select event_id, status from clip_requests where request_id = $1', [rid])).toEqual([
        { event_id: eventId, status: 'completed' },
      ]);
      expect(await run('select id, clip_request_event_id from clips')).toEqual([
        { id: clipId, clip_request_event_id: eventId },
      ]);
      expect(await run('select event_id from face_searches where request_id = $1', [rid])).toEqual([
        { event_id: eventId },
      ]);
      // The same id is now free in another event, for both kinds of record; deleting a request still removes its clips.
      await run(
        `insert into face_searches (request_id, organisation_id, event_id, matches) values ($1, $2, $3, '[]'::jsonb)`,
        [rid, orgId, otherEvent],
      );
      await run(
        `insert into clip_requests (request_id, event_id, organisation_id, status) values ($1, $2, $3, 'no_matches')`,
        [rid, otherEvent, orgId],
      );
      await run('delete from clip_requests where event_id = $1 and request_id = $2', [eventId, rid]);
      expect(await run('select id from clips')).toEqual([]);
    } finally {
      await pool.end();
      await sql(`drop database ${name}`);
    }
  }, 120_000);
});
