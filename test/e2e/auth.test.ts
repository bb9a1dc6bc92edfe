import { hashApiKey } from '@em/core';
import { randomUUID } from 'node:crypto';
import { accessToken, account, api, closeDb, expectError, fixtures, info, sql } from './support/platform';

/** Every route of the read slice, with a path for an organisation and one of its events. */
const ROUTES: Array<(org: number, event: number, image: string) => string> = [
  (o) => `/${o}/events`,
  (o, e) => `/${o}/event/${e}/details`,
  (o, e) => `/${o}/event/${e}/ping`,
  (o, e) => `/${o}/event/${e}/images`,
  (o, e, i) => `/${o}/event/${e}/images/${i}`,
  (o, e) => `/${o}/event/${e}/bibs/101`,
  (o, e) => `/${o}/event/${e}/timeline/days`,
  (o, e) => `/${o}/event/${e}/timeline/images?from=0&to=2000000000`,
];

describe('authentication and authorisation matrix (every route)', () => {
  let own: { orgId: number; key: string; eventId: number; imageId: string };
  let other: { orgId: number; key: string; eventId: number };
  let inactiveKey: string;
  let hostBoundKey: string;
  let ipBoundKey: string;

  beforeAll(async () => {
    const a = await fixtures.organisation('Auth Org A');
    const eventId = await fixtures.event(a.orgId);
    const [imageId] = await fixtures.photos(eventId, [{ capturedAt: new Date('2026-05-17T09:00:00Z'), bibs: ['101'] }]);
    own = { ...a, eventId, imageId };
    const b = await fixtures.organisation('Auth Org B');
    other = { ...b, eventId: await fixtures.event(b.orgId) };
    inactiveKey = await fixtures.apiKey(a.orgId, { active: false });
    hostBoundKey = await fixtures.apiKey(a.orgId, { allowedHosts: ['photos.example.org', '*.club.example'] });
    ipBoundKey = await fixtures.apiKey(a.orgId, { allowedHosts: ['203.0.113.7'] });
  });
  afterAll(closeDb);

  const path = (i: number) => ROUTES[i](own.orgId, own.eventId, own.imageId);

  it.each(ROUTES.map((_, i) => [i]))('route %i answers 200 with its own key', async (i) => {
    expect((await api(path(i), { key: own.key })).status).toBe(200);
  });

  it.each(ROUTES.map((_, i) => [i]))('route %i: no key 401, unknown or inactive key 403', async (i) => {
    expectError(await api(path(i), { key: null }), 401);
    expectError(await api(path(i), { key: 'emk_thisKeyDoesNotExistAnywhere000000' }), 403);
    expectError(await api(path(i), { key: inactiveKey }), 403);
  });

  it.each(ROUTES.map((_, i) => [i]))(
    "route %i: another organisation's key, or another organisation's event, 403",
    async (i) => {
      expectError(await api(path(i), { key: other.key }), 403);
      if (i > 0) expectError(await api(ROUTES[i](own.orgId, other.eventId, own.imageId), { key: own.key }), 403);
    },
  );

  it.each(ROUTES.map((_, i) => [i]))('route %i: host allowlist by Origin/Referer, and by client IP', async (i) => {
    expectError(await api(path(i), { key: hostBoundKey, headers: { origin: 'https://evil.example' } }), 403);
    expectError(await api(path(i), { key: hostBoundKey }), 403); // no Origin: judged by IP, not on the list
    expect((await api(path(i), { key: hostBoundKey, headers: { origin: 'https://photos.example.org' } })).status).toBe(
      200,
    );
    expect(
      (await api(path(i), { key: hostBoundKey, headers: { referer: 'https://www.club.example/gallery' } })).status,
    ).toBe(200);
    expect((await api(path(i), { key: ipBoundKey, headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(200);
    expectError(await api(path(i), { key: ipBoundKey, headers: { 'x-forwarded-for': '198.51.100.2' } }), 403);
  });

  it.each(ROUTES.map((_, i) => [i]))('route %i: an API key and a bearer token together is a 400', async (i) => {
    expectError(await api(path(i), { key: own.key, headers: { authorization: 'Bearer abc.def.ghi' } }), 400);
  });

  it.each(ROUTES.map((_, i) => [i]))(
    'route %i with bearer tokens: member 200; malformed or expired 401; wrong scope or non-member 403',
    async (i) => {
      const email = `member-${randomUUID()}@example.org`;
      const subject = `idp|${randomUUID()}`;
      await account(email, [[own.orgId, 'user']]);
      const bearer = (token: string) => ({ key: null, headers: { authorization: `Bearer ${token}` } });
      expect((await api(path(i), bearer(await accessToken({ subject, email })))).status).toBe(200);
      expectError(await api(path(i), bearer('malformed')), 401);
      expectError(await api(path(i), bearer(await accessToken({ subject, email, expiresIn: -300 }))), 401);
      expectError(await api(path(i), bearer(await accessToken({ subject, email, scopes: ['analytics:read'] }))), 403);
      expectError(
        await api(ROUTES[i](other.orgId, other.eventId, own.imageId), bearer(await accessToken({ subject, email }))),
        403,
      );
    },
  );

  it('an event that does not exist is a 404', async () => {
    expectError(await api(`/${own.orgId}/event/999999/details`, { key: own.key }), 404);
  });

  it('the account endpoint refuses API keys (403) and missing credentials (401)', async () => {
    expectError(await api('/account', { key: info.demo.apiKey }), 403);
    expectError(await api('/account', { key: null }), 401);
    expectError(await api('/account', { key: null, headers: { authorization: 'Bearer not-a-token' } }), 401);
    expectError(await api('/account', { key: null, headers: { authorization: 'Basic dXNlcjpwYXNz' } }), 401);
    expectError(await api('/account', { key: info.demo.apiKey, headers: { authorization: 'Bearer x' } }), 400);
  });

  it('a key deactivated in the database stops working', async () => {
    const key = await fixtures.apiKey(own.orgId);
    expect((await api(`/${own.orgId}/events`, { key })).status).toBe(200);
    await sql('update api_keys set active = false where key_hash = $1', [hashApiKey(key)]);
    expectError(await api(`/${own.orgId}/events`, { key }), 403);
  });
});
