import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { drawnPhotosForm } from './support/drawn-photos';
import {
  accessToken,
  account,
  administrationOf,
  api,
  closeDb,
  expectError,
  expectSuccess,
  fixtures,
  info,
  sql,
  store,
  waitForPipeline,
} from './support/platform';

const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.org`;
const WRITE = ['events:read', 'events:write'];

/** A GraphQL call to the gateway with a bearer token, or an API key (`key:` prefix). */
async function gqlAs(credential: string, query: string, variables: Record<string, unknown> = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (credential.startsWith('key:')) headers['x-api-key'] = credential.slice(4);
  else headers.authorization = `Bearer ${credential}`;
  const res = await fetch(info.gatewayUrl, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as {
    data?: any;
    errors?: Array<{ message: string; extensions?: { code?: string; field?: string } }>;
  };
  return { data: body.data, error: body.errors?.[0], code: body.errors?.[0]?.extensions?.code };
}

/** A bearer token of a new account: a platform administrator, or a member with these roles. */
async function tokenOf(
  opts: { platformAdmin?: boolean; roles?: Array<[number, 'admin' | 'user']>; scopes?: string[] } = {},
): Promise<string> {
  const email = unique('person');
  const accountId = await account(email, opts.roles ?? []);
  if (opts.platformAdmin) await (await administrationOf()).repos.accounts.setPlatformAdmin(accountId, true);
  return accessToken({ subject: `idp|${randomUUID()}`, email, scopes: opts.scopes ?? WRITE });
}

const CREATE_ORG = 'mutation($n: String!, $s: String) { createOrganisation(name: $n, slug: $s) { id name slug role } }';
const CREATE_EVENT =
  'mutation($o: Int!, $i: EventInput!) { createEvent(orgId: $o, input: $i) { id slug status bibSearch selfieSearch timelineSearch confidenceThreshold timeZone eventDate watermarkText } }';
const UPDATE_EVENT =
  'mutation($o: Int!, $e: Int!, $i: EventInput!) { updateEvent(orgId: $o, eventId: $e, input: $i) { id bibSearch timelineSearch status } }';

describe('administration over GraphQL', () => {
  let orgId: number;
  let orgKey: string;
  let admin: string;
  let user: string;
  let platformAdmin: string;

  beforeAll(async () => {
    ({ orgId, key: orgKey } = await fixtures.organisation('Admin Club'));
    admin = await tokenOf({ roles: [[orgId, 'admin']] });
    user = await tokenOf({ roles: [[orgId, 'user']] });
    platformAdmin = await tokenOf({ platformAdmin: true });
  });
  afterAll(closeDb);

  describe('organisations', () => {
    it('only platform administrators create organisations; the creator is its admin', async () => {
      const created = await gqlAs(platformAdmin, CREATE_ORG, { n: 'Night Runners' });
      expect(created.data.createOrganisation).toMatchObject({ name: 'Night Runners', role: null });
      const org = created.data.createOrganisation;
      const [member] = await sql('select m.role, m.status from memberships m where m.organisation_id = $1', [org.id]);
      expect(member).toEqual({ role: 'admin', status: 'active' });
      for (const caller of [
        admin,
        user,
        `key:${orgKey}`,
        await tokenOf({ platformAdmin: true, scopes: ['events:read'] }),
      ]) {
        expect((await gqlAs(caller, CREATE_ORG, { n: 'Mine' })).code).toBe('FORBIDDEN');
      }
    });

    it('refuses a taken slug (CONFLICT) and bad names and slugs (BAD_USER_INPUT)', async () => {
      const slug = `club-${randomUUID().slice(0, 8)}`;
      expect((await gqlAs(platformAdmin, CREATE_ORG, { n: 'A', s: slug })).data.createOrganisation.slug).toBe(slug);
      expect((await gqlAs(platformAdmin, CREATE_ORG, { n: 'B', s: slug })).code).toBe('CONFLICT');
      expect(await gqlAs(platformAdmin, CREATE_ORG, { n: '   ' })).toMatchObject({
        code: 'BAD_USER_INPUT',
        error: { extensions: { field: 'name' } },
      });
      expect(await gqlAs(platformAdmin, CREATE_ORG, { n: 'x'.repeat(201) })).toMatchObject({ code: 'BAD_USER_INPUT' });
      expect(await gqlAs(platformAdmin, CREATE_ORG, { n: 'C', s: 'Bad Slug!' })).toMatchObject({
        code: 'BAD_USER_INPUT',
        error: { extensions: { field: 'slug' } },
      });
    });

    it('lists what the caller may see and lets admins rename', async () => {
      expect((await gqlAs(admin, '{ organisations { id role } }')).data.organisations).toEqual([
        { id: orgId, role: 'admin' },
      ]);
      expect((await gqlAs(`key:${orgKey}`, '{ organisations { id role } }')).data.organisations).toEqual([
        { id: orgId, role: null },
      ]);
      const rename = 'mutation($o: Int!, $n: String!) { renameOrganisation(orgId: $o, name: $n) { name } }';
      expect((await gqlAs(admin, rename, { o: orgId, n: 'Admin Club 2' })).data.renameOrganisation.name).toBe(
        'Admin Club 2',
      );
      expect((await gqlAs(user, rename, { o: orgId, n: 'Mine' })).code).toBe('FORBIDDEN');
      expect((await gqlAs(`key:${orgKey}`, rename, { o: orgId, n: 'Mine' })).code).toBe('FORBIDDEN');
    });
  });

  describe('events', () => {
    it('an admin creates an event with chosen flags, threshold, zone, date and watermark', async () => {
      const input = {
        name: 'City 10K',
        eventDate: '2026-05-17T09:30',
        timeZone: 'europe/paris',
        bibSearch: true,
        selfieSearch: false,
        confidenceThreshold: 70,
        watermarkText: 'City 10K',
        status: 'active',
      };
      const { data } = await gqlAs(admin, CREATE_EVENT, { o: orgId, i: input });
      expect(data.createEvent).toMatchObject({
        slug: 'city-10k',
        status: 'active',
        bibSearch: true,
        selfieSearch: false,
        timelineSearch: false,
        confidenceThreshold: 70,
        timeZone: 'Europe/Paris',
        eventDate: '2026-05-17T09:30:00',
        watermarkText: 'City 10K',
      });
      const details = expectSuccess(await api(`/${orgId}/event/${data.createEvent.id}/details`, { key: orgKey }));
      expect(details).toMatchObject({ bib_search: true, selfie_search: false, event_name: 'City 10K' });
    });

    it('only admins of the organisation administer its events: users, API keys and other admins get 403', async () => {
      const other = await fixtures.organisation();
      const otherAdmin = await tokenOf({ roles: [[other.orgId, 'admin']] });
      const eventId = await fixtures.event(orgId);
      for (const caller of [
        user,
        `key:${orgKey}`,
        otherAdmin,
        await tokenOf({ roles: [[orgId, 'admin']], scopes: ['events:read'] }),
      ]) {
        expect((await gqlAs(caller, CREATE_EVENT, { o: orgId, i: { name: 'X' } })).code).toBe('FORBIDDEN');
        expect((await gqlAs(caller, UPDATE_EVENT, { o: orgId, e: eventId, i: { bibSearch: false } })).code).toBe(
          'FORBIDDEN',
        );
      }
      // an admin of another organisation naming its own organisation and this event
      expect(
        (await gqlAs(otherAdmin, UPDATE_EVENT, { o: other.orgId, e: eventId, i: { bibSearch: false } })).code,
      ).toBe('FORBIDDEN');
      expect((await gqlAs(admin, UPDATE_EVENT, { o: orgId, e: 2147483647, i: { bibSearch: false } })).code).toBe(
        'NOT_FOUND',
      );
    });

    it.each([
      [{ name: 'X', confidenceThreshold: 101 }, 'confidence_threshold'],
      [{ name: 'X', confidenceThreshold: -0.5 }, 'confidence_threshold'],
      [{ name: 'X', timeZone: 'Mars/Olympus_Mons' }, 'time_zone'],
      [{ name: 'X', timeZone: 'UTC+1' }, 'time_zone'],
      [{ name: 'X', slug: 'UPPER' }, 'slug'],
      [{ name: 'X', eventDate: '2026-13-01' }, 'event_date'],
      [{ name: 'X', status: 'live' }, 'status'],
      [{ name: 'X', watermarkText: 'w'.repeat(101) }, 'watermark_text'],
      [{ name: 'X\nY' }, 'name'],
      [{ name: 'X', videoSelfieSearch: true }, 'video_selfie_search'],
      [{ name: 'X', clipMaxDurationSeconds: 100000 }, 'clip_max_duration_seconds'],
      [{ name: 'X', clipRetentionHours: 0 }, 'clip_retention_hours'],
      [{ name: 'X', videoSampleFps: 1000 }, 'video_sample_fps'],
    ])('refuses %p with BAD_USER_INPUT naming %s', async (input, field) => {
      expect(await gqlAs(admin, CREATE_EVENT, { o: orgId, i: input })).toMatchObject({
        code: 'BAD_USER_INPUT',
        error: { extensions: { field } },
      });
    });

    it('a flag switched off gives 403 on its REST routes from the very next request, and on again 200', async () => {
      const eventId = await fixtures.event(orgId, { bibSearch: true, timelineSearch: true });
      const base = `/${orgId}/event/${eventId}`;
      expectSuccess(await api(`${base}/bibs/1207`, { key: orgKey }));
      expectSuccess(await api(`${base}/timeline/days`, { key: orgKey }));
      expect(
        (await gqlAs(admin, UPDATE_EVENT, { o: orgId, e: eventId, i: { bibSearch: false } })).data.updateEvent
          .bibSearch,
      ).toBe(false);
      expectError(await api(`${base}/bibs/1207`, { key: orgKey }), 403);
      expectSuccess(await api(`${base}/timeline/days`, { key: orgKey }));
      await gqlAs(admin, UPDATE_EVENT, { o: orgId, e: eventId, i: { enabled: false } });
      expectError(await api(`${base}/timeline/days`, { key: orgKey }), 403);
      await gqlAs(admin, UPDATE_EVENT, { o: orgId, e: eventId, i: { enabled: true, bibSearch: true } });
      expectSuccess(await api(`${base}/bibs/1207`, { key: orgKey }));
    });

    it('archives', async () => {
      const eventId = await fixtures.event(orgId);
      const archive = 'mutation($o: Int!, $e: Int!) { archiveEvent(orgId: $o, eventId: $e) { status } }';
      expect((await gqlAs(`key:${orgKey}`, archive, { o: orgId, e: eventId })).code).toBe('FORBIDDEN');
      expect((await gqlAs(admin, archive, { o: orgId, e: eventId })).data.archiveEvent.status).toBe('archived');
    });

    it('sets a cover image (checked like a photo) and refuses a file that is not one', async () => {
      const eventId = await fixtures.event(orgId);
      const cover = async (content: Buffer, credential = admin) => {
        const form = new FormData();
        form.append(
          'operations',
          JSON.stringify({
            query:
              'mutation($o: Int!, $e: Int!, $f: Upload!) { setEventCover(orgId: $o, eventId: $e, file: $f) { coverImageUrl } }',
            variables: { o: orgId, e: eventId, f: null },
          }),
        );
        form.append('map', JSON.stringify({ 0: ['variables.f'] }));
        form.append('0', new Blob([new Uint8Array(content)], { type: 'image/png' }), 'cover.png');
        const res = await fetch(info.gatewayUrl, {
          method: 'POST',
          headers: { authorization: `Bearer ${credential}`, 'apollo-require-preflight': 'true' },
          body: form,
        });
        return await res.json();
      };
      const png = await sharp({ create: { width: 2400, height: 1200, channels: 3, background: '#3366aa' } })
        .png()
        .toBuffer();
      const set = await cover(png);
      expect(set.data.setEventCover.coverImageUrl).toMatch(new RegExp(`/public/${eventId}/cover/.+\\.jpg$`));
      expect((await fetch(set.data.setEventCover.coverImageUrl)).status).toBe(200);
      expect((await cover(Buffer.from('not an image'))).errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect((await cover(png, user)).errors[0].extensions.code).toBe('FORBIDDEN');
    });

    it('deletes an event with its rows and its objects in S3 as a background job with progress; confirm is required', async () => {
      const eventId = await fixtures.event(orgId);
      const base = `/${orgId}/event/${eventId}`;
      expectSuccess(
        await api(`${base}/pipeline/photos/import`, {
          key: orgKey,
          method: 'POST',
          body: await drawnPhotosForm([31, 32], { width: 700, height: 450 }),
        }),
      );
      expectSuccess(await api(`${base}/pipeline/photos/process`, { key: orgKey, method: 'POST' }));
      await waitForPipeline(base, orgKey);
      const objects = async () =>
        (await Promise.all([`originals/${eventId}/`, `public/${eventId}/`].map((p) => store.list(p)))).flat().length;
      expect(await objects()).toBeGreaterThanOrEqual(6);

      const del =
        'mutation($o: Int!, $e: Int!, $c: Boolean!) { deleteEvent(orgId: $o, eventId: $e, confirm: $c) { state percent } }';
      expect(await gqlAs(admin, del, { o: orgId, e: eventId, c: false })).toMatchObject({
        code: 'BAD_USER_INPUT',
        error: { extensions: { field: 'confirm' } },
      });
      expect((await gqlAs(user, del, { o: orgId, e: eventId, c: true })).code).toBe('FORBIDDEN');
      expect((await gqlAs(`key:${orgKey}`, del, { o: orgId, e: eventId, c: true })).code).toBe('FORBIDDEN');
      expect((await gqlAs(admin, del, { o: orgId, e: eventId, c: true })).data.deleteEvent.state).toMatch(
        /queued|running|done/,
      );
      expectError(await api(`${base}/details`, { key: orgKey }), 404);

      const status =
        'query($o: Int!, $e: Int!) { eventDeletion(orgId: $o, eventId: $e) { state percent objectsDeleted objectsFound } }';
      const deadline = Date.now() + 60_000;
      let last: any;
      do {
        last = (await gqlAs(admin, status, { o: orgId, e: eventId })).data?.eventDeletion;
        if (last?.state !== 'done') await new Promise((r) => setTimeout(r, 300));
      } while (last?.state !== 'done' && Date.now() < deadline);
      expect(last).toMatchObject({ state: 'done', percent: 100 });
      expect(last.objectsDeleted).toBe(last.objectsFound);
      expect(await objects()).toBe(0);
      expect(
        await sql('select 1 from events where id = $1 union all select 1 from photos where event_id = $1', [eventId]),
      ).toEqual([]);
      const stranger = await tokenOf({ roles: [[(await fixtures.organisation()).orgId, 'admin']] });
      expect((await gqlAs(stranger, status, { o: orgId, e: eventId })).code).toBe('FORBIDDEN');
      // Its usage outlives it: the two processed photos are still in the organisation's report.
      const usage = (await gqlAs(admin, `{ usage(orgId: ${orgId}) { rows { eventId month photosProcessed } } }`)).data
        .usage.rows;
      expect(usage).toContainEqual({ eventId, month: new Date().toISOString().slice(0, 7), photosProcessed: 2 });
    });
  });

  describe('members', () => {
    const INVITE =
      'mutation($o: Int!, $m: String!, $r: String!) { inviteMember(orgId: $o, email: $m, role: $r) { accountId email role status } }';

    it('invites by e-mail: pending until the first sign-in, then a member with its role', async () => {
      const email = unique('Invited').toUpperCase();
      const invited = (await gqlAs(admin, INVITE, { o: orgId, m: email, r: 'user' })).data.inviteMember;
      expect(invited).toMatchObject({ email: email.toLowerCase(), role: 'user', status: 'pending' });
      const token = await accessToken({
        subject: `idp|${randomUUID()}`,
        email: email.toLowerCase(),
        scopes: ['events:read'],
      });
      expect(
        expectSuccess(await api('/account', { key: null, headers: { authorization: `Bearer ${token}` } }))
          .organisations,
      ).toEqual([expect.objectContaining({ org_id: orgId, role: 'user' })]);
      const members = (await gqlAs(admin, `{ members(orgId: ${orgId}) { accountId status } }`)).data.members;
      expect(members).toContainEqual({ accountId: invited.accountId, status: 'active' });
    });

    it('validates, keeps the last admin, and is for admins only', async () => {
      expect(await gqlAs(admin, INVITE, { o: orgId, m: 'nobody', r: 'user' })).toMatchObject({
        code: 'BAD_USER_INPUT',
        error: { extensions: { field: 'email' } },
      });
      expect(await gqlAs(admin, INVITE, { o: orgId, m: unique('x'), r: 'owner' })).toMatchObject({
        code: 'BAD_USER_INPUT',
        error: { extensions: { field: 'role' } },
      });
      expect((await gqlAs(user, INVITE, { o: orgId, m: unique('x'), r: 'admin' })).code).toBe('FORBIDDEN');
      expect((await gqlAs(`key:${orgKey}`, INVITE, { o: orgId, m: unique('x'), r: 'admin' })).code).toBe('FORBIDDEN');
      const solo = await fixtures.organisation();
      const soloAdmin = await tokenOf({ roles: [[solo.orgId, 'admin']] });
      const [{ accountId: soloAdminId }] = (await gqlAs(soloAdmin, `{ members(orgId: ${solo.orgId}) { accountId } }`))
        .data.members;
      const demote = 'mutation($o: Int!, $a: Int!) { setMemberRole(orgId: $o, accountId: $a, role: "user") { role } }';
      expect((await gqlAs(soloAdmin, demote, { o: solo.orgId, a: soloAdminId })).code).toBe('CONFLICT');
      expect(
        (
          await gqlAs(soloAdmin, 'mutation($o: Int!, $a: Int!) { removeMember(orgId: $o, accountId: $a) }', {
            o: solo.orgId,
            a: soloAdminId,
          })
        ).code,
      ).toBe('CONFLICT');
    });
  });

  it('reports usage per event and month to admins only', async () => {
    const eventId = await fixtures.event(orgId);
    await fixtures.photos(eventId, [{ capturedAt: null }]);
    await sql('update photos set processed_at = now() where event_id = $1', [eventId]);
    const query = `{ usage(orgId: ${orgId}) { rows { eventId month photosProcessed faceSearchesBilled } totals { photosProcessed } } }`;
    const { data } = await gqlAs(admin, query);
    expect(data.usage.rows).toContainEqual({
      eventId,
      month: new Date().toISOString().slice(0, 7),
      photosProcessed: 1,
      faceSearchesBilled: 0,
    });
    expect((await gqlAs(user, query)).code).toBe('FORBIDDEN');
    expect((await gqlAs(`key:${orgKey}`, query)).code).toBe('FORBIDDEN');
    expect(
      (
        await gqlAs(
          admin,
          `{ usage(orgId: ${orgId}, from: "2026-05-01T00:00:00Z", to: "2026-04-01T00:00:00Z") { totals { clipsMade } } }`,
        )
      ).code,
    ).toBe('BAD_USER_INPUT');
  });
});
