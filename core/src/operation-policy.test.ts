import type { Event } from './db/entities';
import {
  authorizeOperation,
  guardAccountOperation,
  guardOperation,
  guardOperationForEvents,
  guardOrganisationOperation,
} from './operation-guard';
import { AppError } from './errors';
import { findOperationPolicy, operationPolicy } from './operation-policy';
import { Principal } from './principal';

const event = {
  id: 7,
  enabled: true,
  organisation: { id: 1 },
  bibSearch: true,
  selfieSearch: false,
  timelineSearch: true,
  videoSearch: true,
  videoSelfieSearch: true,
};
const events = { findById: async (id: number) => (id === 7 ? (event as unknown as Event) : null) };
const key: Principal = { orgId: 1, kind: 'api_key', apiKeyId: 1, scopes: [], requestId: 'r' };
const readOnlyToken: Principal = {
  orgId: null,
  kind: 'account',
  accountId: 1,
  scopes: ['events:read'],
  orgRoles: { 1: 'user' },
  requestId: 'r',
};

describe('the operation policy', () => {
  it('passes a key of the organisation for an enabled feature', async () => {
    await expect(authorizeOperation(events, key, 'bibSearch', 1, 7)).resolves.toBeUndefined();
  });

  it('refuses a disabled feature, another organisation and a missing event as the operation would', async () => {
    await expect(authorizeOperation(events, key, 'searchFaces', 1, 7)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(authorizeOperation(events, key, 'photos', 2, 7)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(authorizeOperation(events, key, 'photos', 1, 8)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a write to a token without events:write', async () => {
    await expect(authorizeOperation(events, readOnlyToken, 'photos', 1, 7)).resolves.toBeUndefined();
    await expect(authorizeOperation(events, readOnlyToken, 'importPhotos', 1, 7)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    // The pipeline's progress is the organiser's view: guarded like its actions, as the service always did.
    await expect(authorizeOperation(events, readOnlyToken, 'pipelineStatus', 1, 7)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('refuses every write to a read-only key (a browser key), and lets it read and search', async () => {
    const browserKey: Principal = { ...key, readOnly: true };
    await expect(authorizeOperation(events, browserKey, 'bibSearch', 1, 7)).resolves.toBeUndefined();
    await expect(authorizeOperation(events, browserKey, 'timelinePhotos', 1, 7)).resolves.toBeUndefined();
    for (const write of ['importPhotos', 'processPhotos', 'goLive', 'pipelineStatus', 'addEventVideo']) {
      await expect(authorizeOperation(events, browserKey, write, 1, 7)).rejects.toMatchObject({
        code: 'FORBIDDEN',
        message: 'This API key is read-only',
      });
    }
    await expect(authorizeOperation(events, key, 'goLive', 1, 7)).resolves.toBeUndefined();
  });

  it("refuses organiser views to a read-only key: the organisation's face-search billing and the event's video files", async () => {
    const browserKey: Principal = { ...key, readOnly: true };
    await expect(authorizeOperation(events, browserKey, 'faceSearchUsage', 1, null)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/read-only/),
    });
    await expect(authorizeOperation(events, browserKey, 'eventVideos', 1, 7)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(authorizeOperation(events, key, 'faceSearchUsage', 1, null)).resolves.toBeUndefined();
    await expect(authorizeOperation(events, key, 'eventVideos', 1, 7)).resolves.toBeUndefined();
  });

  it('keeps a key limited to some events to them (403 before the lookup, a missing event too) and from billing', async () => {
    const scoped: Principal = { ...key, eventIds: [7] };
    await expect(authorizeOperation(events, scoped, 'bibSearch', 1, 7)).resolves.toBeUndefined();
    await expect(authorizeOperation(events, scoped, 'goLive', 1, 7)).resolves.toBeUndefined();
    await expect(authorizeOperation(events, { ...key, eventIds: [9] }, 'photos', 1, 7)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: 'This API key is limited to other events',
    });
    await expect(authorizeOperation(events, scoped, 'photos', 1, 8)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(authorizeOperation(events, scoped, 'faceSearchUsage', 1, null)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/limited to some events/),
    });
    await expect(authorizeOperation(events, scoped, 'events', 1, null)).resolves.toBeUndefined();
    await expect(authorizeOperation(events, { ...key, eventIds: [9] }, 'photos', 1, 8)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('checks the organisation alone without an event, and nothing more without an organisation', async () => {
    await expect(authorizeOperation(events, key, 'importPhotos', 2, null)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(authorizeOperation(events, key, 'importPhotos', null, null)).resolves.toBeUndefined();
  });

  it('knows no other operation (nor an inherited property name)', () => {
    expect(() => operationPolicy('toString')).toThrow(/Unknown operation/);
    expect(() => operationPolicy('__typename')).toThrow(/Unknown operation/);
    expect(findOperationPolicy('constructor')).toBeUndefined();
  });

  it('lets only an admin token of the organisation manage its API keys', async () => {
    const adminToken: Principal = {
      ...readOnlyToken,
      scopes: ['events:read', 'events:write'],
      orgRoles: { 1: 'admin' },
    };
    expect(() => guardOrganisationOperation(key, 'createApiKey', 1)).toThrow(/OAuth bearer token of an admin/);
    expect(() => guardOrganisationOperation({ ...adminToken, orgRoles: { 1: 'user' } }, 'apiKeys', 1)).toThrow(
      /Only admins/,
    );
    expect(() => guardOrganisationOperation(adminToken, 'deleteApiKey', 1)).not.toThrow();
    await expect(authorizeOperation(events, key, 'createApiKey', 1, null)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('charges face matching only for the fields that run it, and makes a stored request_id a read only for the face search', () => {
    expect(operationPolicy('searchFaces')).toMatchObject({ rate: 'matching', storedRequestIdIsRead: true });
    expect(operationPolicy('startVideoClipping')).toMatchObject({ rate: 'matching', storedRequestIdIsRead: false });
    expect(operationPolicy('faceSearch')).toMatchObject({ rate: 'read', storedRequestIdIsRead: false });
  });

  it('lets platform administrators create organisations and administer any organisation, and nobody else', async () => {
    const platform: Principal = {
      orgId: null,
      kind: 'account',
      accountId: 9,
      scopes: ['events:read', 'events:write'],
      orgRoles: {},
      platformAdmin: true,
    };
    const adminToken: Principal = {
      ...readOnlyToken,
      scopes: ['events:read', 'events:write'],
      orgRoles: { 1: 'admin' },
    };
    expect(() => guardAccountOperation(platform, 'createOrganisation')).not.toThrow();
    for (const caller of [key, adminToken, { ...platform, scopes: ['events:read'] }]) {
      expect(() => guardAccountOperation(caller, 'createOrganisation')).toThrow(
        expect.objectContaining({ code: 'FORBIDDEN' }),
      );
    }
    await expect(authorizeOperation(events, key, 'createOrganisation', null, null)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(guardOperation(events, platform, 'updateEvent', 1, 7)).resolves.toMatchObject({ id: 7 });
    await expect(guardOperation(events, adminToken, 'deleteEvent', 1, 7)).resolves.toMatchObject({ id: 7 });
    // not an admin: 403 before the event is looked up (no "exists" answer to non-admins)
    await expect(guardOperation(events, key, 'updateEvent', 1, 8)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(
      guardOperation(events, { ...adminToken, orgRoles: { 2: 'admin' } }, 'updateEvent', 2, 7),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(guardOperation(events, adminToken, 'updateEvent', 1, 8)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('guards a field of many events (the federated Event of a page) as the root field of each event would', async () => {
    const other = { ...event, id: 9, organisation: { id: 2 } };
    const rows = [event, other] as unknown as Event[];
    const many = { findAccessMany: async (ids: readonly number[]) => rows.filter((e) => ids.includes(e.id)) };
    const single = { findById: async (id: number) => rows.find((e) => e.id === id) ?? null };
    const principals: Principal[] = [
      key,
      { ...key, readOnly: true },
      { ...key, eventIds: [9] },
      { ...key, orgId: 2 },
      readOnlyToken,
      { ...readOnlyToken, scopes: ['events:read', 'events:write'], orgRoles: { 1: 'admin' } },
    ];
    const outcome = (p: Promise<unknown>) =>
      p.then(
        () => 'allowed',
        (err: AppError) => `${err.code}: ${err.message}`,
      );
    for (const principal of principals)
      for (const operation of ['pipelineStatus', 'eventVideos', 'photos', 'searchFaces', 'updateEvent'] as const) {
        const guarded = await guardOperationForEvents(many, principal, operation, [7, 9, 8]);
        for (const e of [event, other]) {
          const got = guarded.get(e.id);
          const expected = await outcome(guardOperation(single, principal, operation, e.organisation.id, e.id));
          expect([
            principal,
            operation,
            e.id,
            got instanceof AppError ? `${got.code}: ${got.message}` : 'allowed',
          ]).toEqual([principal, operation, e.id, expected]);
        }
        expect((guarded.get(8) as AppError).code).toMatch(/NOT_FOUND|FORBIDDEN/);
      }
  });
});
