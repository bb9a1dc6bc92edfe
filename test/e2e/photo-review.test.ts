import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import {
  accessToken,
  account,
  API,
  api,
  closeDb,
  expectError,
  expectSuccess,
  fixtures,
  info,
  runCli,
  sql,
  store,
  waitForPipeline,
} from './support/platform';

/**
 * The organiser's photo review on the real platform: photos read by the real ml-worker, corrected
 * over GraphQL and the CLI, seen through the participants' REST API.
 */
const WRITE = ['events:read', 'events:write'];
const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.org`;

async function tokenOf(roles: Array<[number, 'admin' | 'user']>): Promise<{ token: string; email: string }> {
  const email = unique('organiser');
  await account(email, roles);
  return { token: await accessToken({ subject: `idp|${randomUUID()}`, email, scopes: WRITE }), email };
}

/** A GraphQL call with a bearer token, or an API key (`key:` prefix). */
async function gqlAs(credential: string, query: string, variables: Record<string, unknown> = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (credential.startsWith('key:')) headers['x-api-key'] = credential.slice(4);
  else headers.authorization = `Bearer ${credential}`;
  const res = await fetch(info.gatewayUrl, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as {
    data?: any;
    errors?: Array<{ message: string; extensions?: { code?: string } }>;
  };
  return { data: body.data, error: body.errors?.[0], code: body.errors?.[0]?.extensions?.code };
}

/** A synthetic race photo: a white bib with a number on green (or only the green and some text). */
function racePhoto(bib: string | null): Promise<Buffer> {
  const sheet = bib
    ? `<rect x="480" y="300" width="440" height="300" fill="white"/>
       <text x="700" y="510" font-size="170" font-family="DejaVu Sans, sans-serif" font-weight="bold" text-anchor="middle" fill="black">${bib}</text>`
    : '';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1400" height="900"><rect width="1400" height="900" fill="#5b8c6e"/>${sheet}</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer();
}

const FIELDS =
  'id hidden bibs { number readText confidence source status box { x y width height } } faces { box { x y width height } quality }';
const REVIEW_PHOTO = `query($o: Int!, $e: Int!, $i: String!) { reviewPhoto(orgId: $o, eventId: $e, imageId: $i) { ${FIELDS} } }`;
const QUEUE =
  'query($o: Int!, $e: Int!, $f: Int, $a: String) { reviewQueue(orgId: $o, eventId: $e, first: $f, after: $a) { items { photo { id } reasons } endCursor hasNextPage } }';
const ADD = `mutation($o: Int!, $e: Int!, $i: String!, $b: String!) { addPhotoBib(orgId: $o, eventId: $e, imageId: $i, bib: $b) { ${FIELDS} } }`;
const REMOVE = `mutation($o: Int!, $e: Int!, $i: String!, $b: String!) { removePhotoBib(orgId: $o, eventId: $e, imageId: $i, bib: $b) { ${FIELDS} } }`;
const HIDE =
  'mutation($o: Int!, $e: Int!, $i: String!) { hidePhoto(orgId: $o, eventId: $e, imageId: $i) { id hidden } }';
const UNHIDE =
  'mutation($o: Int!, $e: Int!, $i: String!) { unhidePhoto(orgId: $o, eventId: $e, imageId: $i) { id hidden } }';
const DELETE = 'mutation($o: Int!, $e: Int!, $i: String!) { deletePhoto(orgId: $o, eventId: $e, imageId: $i) { id } }';
const AUDIT =
  'query($o: Int!, $e: Int) { auditLog(orgId: $o, eventId: $e) { entries { action actor accountEmail photoId detail eventId } hasNextPage } }';

describe('photo review', () => {
  let orgId: number;
  let key: string;
  let browserKey: string;
  let eventId: number;
  let base: string;
  let admin: { token: string; email: string };
  let member: { token: string; email: string };
  let foreignAdmin: string;
  let foreignOrg: number;
  let withBib: string;
  let withoutBib: string;

  const bibSearch = async (bib: string) =>
    expectSuccess(await api(`${base}/bibs/${bib}`, { key: browserKey })).images.map((i: any) => i.image_id);
  const gallery = async () =>
    expectSuccess(await api(`${base}/images?page_size=50`, { key: browserKey })).images.map((i: any) => i.image_id);

  beforeAll(async () => {
    ({ orgId, key } = await fixtures.organisation('Review Club'));
    browserKey = await fixtures.apiKey(orgId, { readOnly: true });
    eventId = await fixtures.event(orgId);
    base = `/${orgId}/event/${eventId}`;
    admin = await tokenOf([[orgId, 'admin']]);
    member = await tokenOf([[orgId, 'user']]);
    foreignOrg = (await fixtures.organisation('Elsewhere')).orgId;
    foreignAdmin = (await tokenOf([[foreignOrg, 'admin']])).token;

    const form = new FormData();
    form.append('files', new Blob([new Uint8Array(await racePhoto('4817'))], { type: 'image/jpeg' }), 'runner.jpg');
    form.append('files', new Blob([new Uint8Array(await racePhoto(null))], { type: 'image/jpeg' }), 'empty.jpg');
    const res = await fetch(`${API}${base}/pipeline/photos/import`, {
      method: 'POST',
      headers: { 'x-api-key': key },
      body: form,
    });
    const files = ((await res.json()) as { data: { files: Array<{ key: string; image_id: string }> } }).data.files;
    withBib = files.find((f) => f.key.endsWith('runner.jpg'))!.image_id;
    withoutBib = files.find((f) => f.key.endsWith('empty.jpg'))!.image_id;
    expectSuccess(await api(`${base}/pipeline/photos/process`, { key, method: 'POST' }));
    expect((await waitForPipeline(base, key)).failed).toBe(0);
    expectSuccess(await api(`${base}/pipeline/photos/go-live`, { key, method: 'POST' }));
  }, 240_000);
  afterAll(closeDb);

  it("shows an organiser the photo's bibs (what the worker read) and faces, and queues the photo without a bib", async () => {
    const shown = await gqlAs(admin.token, REVIEW_PHOTO, { o: orgId, e: eventId, i: withBib });
    expect(shown.error).toBeUndefined();
    expect(shown.data.reviewPhoto).toMatchObject({ id: withBib, hidden: false, faces: [] });
    expect(shown.data.reviewPhoto.bibs).toEqual([
      expect.objectContaining({ number: '4817', readText: '4817', source: 'READ', status: 'ACCEPTED' }),
    ]);
    expect(shown.data.reviewPhoto.bibs[0].box.width).toBeGreaterThan(0);
    const queue = await gqlAs(member.token, QUEUE, { o: orgId, e: eventId });
    expect(queue.data.reviewQueue).toEqual({
      items: [{ photo: { id: withoutBib }, reasons: ['NO_BIB'] }],
      endCursor: expect.any(String),
      hasNextPage: false,
    });
    expect(await bibSearch('4817')).toEqual([withBib]);
  });

  it('hide: gone from every participant answer at once (the cached answer too); unhide: back', async () => {
    const before = await api(`${base}/bibs/4817`, { key: browserKey });
    const etag = before.headers.get('etag')!;
    expect((await gqlAs(admin.token, HIDE, { o: orgId, e: eventId, i: withBib })).data.hidePhoto).toEqual({
      id: withBib,
      hidden: true,
    });
    const revalidated = await api(`${base}/bibs/4817`, { key: browserKey, headers: { 'if-none-match': etag } });
    expect(revalidated.status).toBe(200);
    expect(expectSuccess(revalidated).images).toEqual([]);
    expect(await gallery()).toEqual([withoutBib]);
    expectError(await api(`${base}/images/${withBib}`, { key: browserKey }), 404);
    // Still the organiser's to see.
    expect((await gqlAs(admin.token, REVIEW_PHOTO, { o: orgId, e: eventId, i: withBib })).data.reviewPhoto.hidden).toBe(
      true,
    );
    expect((await gqlAs(member.token, UNHIDE, { o: orgId, e: eventId, i: withBib })).data.unhidePhoto).toEqual({
      id: withBib,
      hidden: false,
    });
    expect(await bibSearch('4817')).toEqual([withBib]);
    expect((await gallery()).sort()).toEqual([withBib, withoutBib].sort());
  });

  it('add-bib: the REST bib search finds the photo; remove-bib: it no longer does; bad bibs are 400', async () => {
    const added = await gqlAs(admin.token, ADD, { o: orgId, e: eventId, i: withoutBib, b: ' 555 ' });
    expect(added.data.addPhotoBib.bibs).toEqual([
      expect.objectContaining({ number: '555', readText: null, source: 'ORGANISER', status: 'ACCEPTED' }),
    ]);
    expect(await bibSearch('555')).toEqual([withoutBib]);
    expect((await gqlAs(admin.token, QUEUE, { o: orgId, e: eventId })).data.reviewQueue.items).toEqual([]);
    const removed = await gqlAs(admin.token, REMOVE, { o: orgId, e: eventId, i: withBib, b: '4817' });
    expect(removed.data.removePhotoBib.bibs).toEqual([
      expect.objectContaining({ number: '4817', source: 'ORGANISER', status: 'REJECTED' }),
    ]);
    expect(await bibSearch('4817')).toEqual([]);
    for (const bib of ['', '1234567', '12-34', "1' or 1=1"])
      expect((await gqlAs(admin.token, ADD, { o: orgId, e: eventId, i: withBib, b: bib })).code).toBe('BAD_USER_INPUT');
    expect((await gqlAs(admin.token, REMOVE, { o: orgId, e: eventId, i: withBib, b: '999' })).code).toBe('NOT_FOUND');
    expect((await gqlAs(admin.token, HIDE, { o: orgId, e: eventId, i: 'not-a-uuid' })).code).toBe('NOT_FOUND');
    expect((await gqlAs(admin.token, QUEUE, { o: orgId, e: eventId, a: 'forged' })).code).toBe('BAD_USER_INPUT');
  });

  it('the CLI shows a photo, corrects a bib and lists the queue', async () => {
    const shown = JSON.parse(
      await runCli('photo', 'show', '--event', String(eventId), '--photo', withoutBib, '--json'),
    );
    expect(shown).toMatchObject({
      id: withoutBib,
      hidden: false,
      bibs: [{ number: '555', source: 'organiser', status: 'accepted' }],
    });
    expect(await runCli('photo', 'add-bib', '--event', String(eventId), '--photo', withBib, '--bib', '4817')).toMatch(
      /4817\taccepted\torganiser/,
    );
    expect(await bibSearch('4817')).toEqual([withBib]);
    expect(await runCli('review-queue', '--event', String(eventId))).toMatch(/nothing to review/);
    const wrong = await runCli('photo', 'frobnicate', '--event', String(eventId), '--photo', withBib).catch(
      (e: Error) => e.message,
    );
    expect(wrong).toMatch(/photo needs an action/);
  });

  it('a key (read-only or not), a member of another organisation or an unknown caller can do none of it', async () => {
    const variables = { o: orgId, e: eventId, i: withBib, b: '1' };
    const calls = [REVIEW_PHOTO, QUEUE, ADD, REMOVE, HIDE, UNHIDE, DELETE];
    for (const credential of [`key:${key}`, `key:${browserKey}`, foreignAdmin]) {
      for (const query of calls)
        expect([query.slice(0, 30), (await gqlAs(credential, query, variables)).code]).toEqual([
          query.slice(0, 30),
          'FORBIDDEN',
        ]);
      // A foreign organiser naming their own organisation with this event.
      expect((await gqlAs(foreignAdmin, HIDE, { ...variables, o: foreignOrg })).code).toBe('FORBIDDEN');
      // The review fields through the participants' photo query.
      const viaPhoto = await gqlAs(
        credential,
        'query($o: Int!, $e: Int!, $i: String!) { photo(orgId: $o, eventId: $e, imageId: $i) { id bibs { number } } }',
        variables,
      );
      expect(viaPhoto.code).toBe('FORBIDDEN');
    }
    expect(await bibSearch('4817')).toEqual([withBib]);
    // The REST API has no review route.
    expect((await api(`${base}/images/${withBib}/bibs`, { key, method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('delete: gone from REST, its original and previews gone from storage, its rows gone', async () => {
    const [row] = await sql<{ original_key: string; large_key: string; thumbnail_key: string }>(
      'select original_key, large_key, thumbnail_key from photos where id = $1',
      [withBib],
    );
    for (const objectKey of Object.values(row)) expect(await store.exists(objectKey)).toBe(true);
    expect((await gqlAs(member.token, DELETE, { o: orgId, e: eventId, i: withBib })).data.deletePhoto).toEqual({
      id: withBib,
    });
    expectError(await api(`${base}/images/${withBib}`, { key: browserKey }), 404);
    expect(await bibSearch('4817')).toEqual([]);
    expect(await gallery()).toEqual([withoutBib]);
    for (const objectKey of Object.values(row)) expect(await store.exists(objectKey)).toBe(false);
    expect(
      await sql('select 1 from photo_bibs where photo_id = $1 union all select 1 from faces where photo_id = $1', [
        withBib,
      ]),
    ).toEqual([]);
    expect(await sql('select published from event_photo_counts where event_id = $1', [eventId])).toEqual([
      { published: 1 },
    ]);
    expect((await gqlAs(member.token, DELETE, { o: orgId, e: eventId, i: withBib })).code).toBe('NOT_FOUND');
  });

  it('the audit log has every change, who made it; organisation admins only may read it', async () => {
    const log = await gqlAs(admin.token, AUDIT, { o: orgId, e: eventId });
    expect(log.error).toBeUndefined();
    const entries = log.data.auditLog.entries.map((e: any) => [
      e.action,
      e.actor,
      e.accountEmail,
      e.photoId,
      e.detail && JSON.parse(e.detail),
    ]);
    expect(entries).toEqual([
      ['photo.delete', 'account', member.email, withBib, { originalFileName: 'runner.jpg' }],
      ['photo.add_bib', 'operator', null, withBib, { bib: '4817' }],
      ['photo.remove_bib', 'account', admin.email, withBib, { bib: '4817' }],
      ['photo.add_bib', 'account', admin.email, withoutBib, { bib: '555' }],
      ['photo.unhide', 'account', member.email, withBib, null],
      ['photo.hide', 'account', admin.email, withBib, null],
    ]);
    for (const credential of [member.token, `key:${key}`, foreignAdmin])
      expect((await gqlAs(credential, AUDIT, { o: orgId, e: eventId })).code).toBe('FORBIDDEN');
    expect((await gqlAs(foreignAdmin, AUDIT, { o: foreignOrg, e: eventId })).data.auditLog.entries).toEqual([]);
  });
});
