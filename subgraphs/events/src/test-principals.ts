import type { Principal } from '@em/core';

/** Callers for the services' unit tests. */
export const callers = {
  admin: (orgId: number, accountId = 1): Principal => ({
    kind: 'account',
    orgId: null,
    accountId,
    scopes: ['events:read', 'events:write'],
    orgRoles: { [orgId]: 'admin' },
  }),
  readOnlyAdmin: (orgId: number): Principal => ({
    kind: 'account',
    orgId: null,
    accountId: 1,
    scopes: ['events:read'],
    orgRoles: { [orgId]: 'admin' },
  }),
  user: (orgId: number): Principal => ({
    kind: 'account',
    orgId: null,
    accountId: 2,
    scopes: ['events:read', 'events:write'],
    orgRoles: { [orgId]: 'user' },
  }),
  key: (orgId: number): Principal => ({ kind: 'api_key', orgId, apiKeyId: 1, scopes: [] }),
  platform: (accountId = 9): Principal => ({
    kind: 'account',
    orgId: null,
    accountId,
    scopes: ['events:read', 'events:write'],
    orgRoles: {},
    platformAdmin: true,
  }),
};
