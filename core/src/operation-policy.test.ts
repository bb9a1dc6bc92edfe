import { EntityManager } from '@mikro-orm/core';
import { authorizeOperation, operationPolicy } from './operation-policy';
import { Principal } from './principal';

const event = { id: 7, enabled: true, organisation: { id: 1 }, bibSearch: true, selfieSearch: false, timelineSearch: true, videoSearch: true, videoSelfieSearch: true };
const em = { findOne: async (_entity: unknown, where: { id: number }) => (where.id === 7 ? event : null) } as unknown as EntityManager;
const key: Principal = { orgId: 1, kind: 'api_key', apiKeyId: 1, scopes: [], requestId: 'r' };
const readOnlyToken: Principal = { orgId: null, kind: 'account', accountId: 1, scopes: ['events:read'], orgRoles: { 1: 'user' }, requestId: 'r' };

describe('the operation policy', () => {
  it('passes a key of the organisation for an enabled feature', async () => {
    await expect(authorizeOperation(em, key, 'bibSearch', 1, 7)).resolves.toBeUndefined();
  });

  it('refuses a disabled feature, another organisation and a missing event as the operation would', async () => {
    await expect(authorizeOperation(em, key, 'searchFaces', 1, 7)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(authorizeOperation(em, key, 'photos', 2, 7)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(authorizeOperation(em, key, 'photos', 1, 8)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a write to a token without events:write', async () => {
    await expect(authorizeOperation(em, readOnlyToken, 'photos', 1, 7)).resolves.toBeUndefined();
    await expect(authorizeOperation(em, readOnlyToken, 'importPhotos', 1, 7)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('checks the organisation alone without an event, and nothing more without an organisation', async () => {
    await expect(authorizeOperation(em, key, 'importPhotos', 2, null)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(authorizeOperation(em, key, 'importPhotos', null, null)).resolves.toBeUndefined();
  });

  it('knows no other operation (nor an inherited property name)', () => {
    expect(() => operationPolicy('toString')).toThrow(/Unknown operation/);
    expect(() => operationPolicy('createApiKey')).toThrow(/Unknown operation/);
  });
});
