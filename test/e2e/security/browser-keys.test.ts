import { hashApiKey } from '@em/core';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import {
  accessToken,
  account,
  api,
  closeDb,
  expectError,
  expectSuccess,
  fixtures,
  gql,
  info,
  postJson,
  sql,
  store,
} from '../support/platform';

describe('#4 a read-only (browser) key sees no organiser views', () => {
  afterAll(closeDb);

  it('#4 lists no draft events, reads no face-search billing and no event videos; a server key of the organisation does', async () => {
    const { orgId, key } = await fixtures.organisation();
    const live = await fixtures.event(orgId, { status: 'active', videoSearch: true });
    const draft = await fixtures.event(orgId, { status: 'draft' });
    const browserKey = await fixtures.apiKey(orgId, { readOnly: true });
    const list = 'query($o: Int!) { events(orgId: $o) { items { id } } }';
    const seen = await gql(list, { o: orgId }, browserKey);
    expect(seen.body.data.events.items.map((e: { id: number }) => e.id)).toEqual([live]);
    expect((await gql(list, { o: orgId }, key)).body.data.events.items.map((e: { id: number }) => e.id).sort()).toEqual(
      [live, draft].sort(),
    );

    const billing = 'query($o: Int!) { faceSearchUsage(orgId: $o) { billableSearches } }';
    expect((await gql(billing, { o: orgId }, browserKey)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await gql(billing, { o: orgId }, key)).body.data.faceSearchUsage).toEqual({ billableSearches: 0 });

    const videos = 'query($o: Int!, $e: Int!) { eventVideos(orgId: $o, eventId: $e) { originalFileName } }';
    expect((await gql(videos, { o: orgId, e: live }, browserKey)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await gql(videos, { o: orgId, e: live }, key)).body.data.eventVideos).toEqual([]);
  });
});

describe("the gateway's internal fields are out of the API", () => {
  afterAll(closeDb);

  it('a browser key, a server key and an admin token all get 400 for storedFaceSearch and currentClipStatus', async () => {
    const { orgId, key } = await fixtures.organisation();
    const eventId = await fixtures.event(orgId, { status: 'active', videoSearch: true, videoSelfieClipping: true });
    const browserKey = await fixtures.apiKey(orgId, { readOnly: true });
    const email = `admin-${randomUUID()}@example.org`;
    await account(email, [[orgId, 'admin']]);
    const token = await accessToken({ subject: `s-${randomUUID()}`, email, scopes: ['events:read', 'events:write'] });
    const requestId = randomUUID();
    const internal = [
      ['query($e: Int!, $r: String!) { storedFaceSearch(eventId: $e, requestId: $r) }', { e: eventId, r: requestId }],
      [
        'query($o: Int!, $e: Int!, $r: String!) { currentClipStatus(orgId: $o, eventId: $e, requestId: $r) { status } }',
        { o: orgId, e: eventId, r: requestId },
      ],
    ] as const;
    const credentials: Array<Record<string, string>> = [
      { 'x-api-key': browserKey },
      { 'x-api-key': key },
      { authorization: `Bearer ${token}` },
    ];
    for (const [query, variables] of internal) {
      for (const credential of credentials) {
        const res = await fetch(info.gatewayUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...credential },
          body: JSON.stringify({ query, variables }),
        });
        const body = (await res.json()) as {
          data?: unknown;
          errors?: Array<{ message?: string; extensions?: { code?: string } }>;
        };
        expect(res.status).toBe(400);
        expect(body.data ?? null).toBeNull();
        expect(body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
        expect(body.errors?.[0]?.message).toMatch(/^Cannot query field "(storedFaceSearch|currentClipStatus)"/);
      }
    }
  });
});

const CLI = path.resolve(__dirname, '../../../scripts/cli/dist/cli.js');

/** The organiser CLI against the test platform (`npm run cli -- ...`). */
function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...info.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const ids = (items: Array<{ event_id?: number; id?: number }>) =>
  items.map((e) => e.event_id ?? e.id).sort((a, b) => a! - b!);

describe('#4 a key limited to a list of events', () => {
  afterAll(closeDb);

  it('#4 create-key --events: list-keys shows the events; the key lists and reaches only them (403 elsewhere), never billing, downloads only there', async () => {
    const { orgId, key: serverKey } = await fixtures.organisation();
    const mine = await fixtures.event(orgId, { status: 'active' });
    const other = await fixtures.event(orgId, { status: 'active' });
    const draft = await fixtures.event(orgId, { status: 'draft' });
    const [photoOfOther] = await fixtures.photos(other, [
      { capturedAt: new Date('2026-05-17T09:00:00Z'), bibs: ['41'] },
    ]);
    await store.put(`originals/${other}/${photoOfOther}.jpg`, Buffer.from('original'), 'image/jpeg');

    const created = await cli(
      'create-key',
      '--org',
      String(orgId),
      '--name',
      'page',
      '--read-only',
      '--events',
      `${mine},${draft}`,
      '--json',
    );
    expect(created.code).toBe(0);
    const { key, apiKey } = JSON.parse(created.stdout.trim().split('\n').at(-1)!);
    expect(apiKey.eventIds).toEqual([mine, draft].sort((a, b) => a - b));
    const listed = await cli('list-keys', '--org', String(orgId));
    expect(listed.stdout).toContain(`events=${[mine, draft].sort((a, b) => a - b).join(',')}`);
    expect((await cli('create-key', '--org', String(orgId), '--name', 'x', '--events', 'abc')).stderr).toMatch(
      /--events is a list of event ids/,
    );
    const foreign = await fixtures.organisation();
    const foreignEvent = await fixtures.event(foreign.orgId);
    expect(
      (await cli('create-key', '--org', String(orgId), '--name', 'x', '--events', String(foreignEvent))).stderr,
    ).toMatch(new RegExp(`Event ${foreignEvent} is not an event of organisation ${orgId}`));

    // The events list: its events only, and no draft for a read-only key (the draft is in its list).
    expect(ids(expectSuccess(await api(`/${orgId}/events`, { key })).events)).toEqual([mine]);
    expect(ids(expectSuccess(await api(`/${orgId}/events`, { key: serverKey })).events)).toEqual(
      [mine, other, draft].sort((a, b) => a - b),
    );

    expectSuccess(await api(`/${orgId}/event/${mine}/details`, { key }));
    for (const route of ['details', 'ping', 'images', `images/${photoOfOther}`, 'bibs/41', 'timeline/days']) {
      expectError(await api(`/${orgId}/event/${other}/${route}`, { key }), 403);
    }
    expectError(
      await postJson(`/${orgId}/event/${other}/original-photos`, key, { method: 'image_id', identifier: photoOfOther }),
      403,
    );
    expect(
      expectSuccess(
        await postJson(`/${orgId}/event/${other}/original-photos`, serverKey, {
          method: 'image_id',
          identifier: photoOfOther,
        }),
      ).successful_count,
    ).toBe(1);
    // An event that does not exist answers as one outside the list: nothing is learnt of other events.
    expectError(await api(`/${orgId}/event/2147483647/details`, { key }), 403);

    const downloads =
      'query($o: Int!, $e: Int!, $i: JSON) { originalDownloads(orgId: $o, eventId: $e, method: "image_id", identifier: $i) { successfulCount } }';
    expect(
      (await gql(downloads, { o: orgId, e: other, i: photoOfOther }, key)).body.errors?.[0]?.extensions?.code,
    ).toBe('FORBIDDEN');
  }, 60_000);

  it('#4 a scoped key that may write reads no face-search billing, and writes only to its events; GraphQL creates it the same', async () => {
    const { orgId, key: serverKey } = await fixtures.organisation();
    const mine = await fixtures.event(orgId, { status: 'active' });
    const other = await fixtures.event(orgId, { status: 'active' });
    const email = `scoped-admin-${randomUUID().slice(0, 8)}@example.org`;
    await account(email, [[orgId, 'admin']]);
    const token = await accessToken({ subject: `s-${randomUUID()}`, email, scopes: ['events:read', 'events:write'] });
    const create =
      'mutation($o: Int!, $e: [Int!]) { createApiKey(orgId: $o, name: "photographer", eventIds: $e) { key apiKey { readOnly eventIds } } }';
    const res = await fetch(info.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: create, variables: { o: orgId, e: [mine] } }),
    });
    const body = await res.json();
    expect(body.data.createApiKey.apiKey).toEqual({ readOnly: false, eventIds: [mine] });
    const key = body.data.createApiKey.key as string;
    const none = await fetch(info.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: create, variables: { o: orgId, e: [] } }),
    });
    expect((await none.json()).errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');

    const billing = 'query($o: Int!) { faceSearchUsage(orgId: $o) { billableSearches } }';
    expect((await gql(billing, { o: orgId }, key)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await gql(billing, { o: orgId }, serverKey)).body.data.faceSearchUsage).toEqual({ billableSearches: 0 });

    expectSuccess(await api(`/${orgId}/event/${mine}/pipeline/photos/status`, { key }));
    expectError(await api(`/${orgId}/event/${other}/pipeline/photos/status`, { key }), 403);
    // The upload to another event is refused before its body is read (the REST adapter's authorize call).
    const form = new FormData();
    form.append('files', new Blob([Buffer.alloc(1024)], { type: 'image/jpeg' }), 'a.jpg');
    expectError(await api(`/${orgId}/event/${other}/pipeline/photos/import`, { key, method: 'POST', body: form }), 403);
  }, 60_000);

  it("#4 the demo's participant page key is read-only and limited to the demo event", async () => {
    const [row] = await sql('select read_only, event_ids from api_keys where key_hash = $1', [
      hashApiKey(info.demo.browserKey),
    ]);
    expect(row).toEqual({ read_only: true, event_ids: [info.demo.eventId] });
  });
});
