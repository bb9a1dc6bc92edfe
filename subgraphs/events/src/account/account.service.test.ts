import {
  InMemoryAccountsRepository,
  InMemoryMembershipsRepository,
  InMemoryOrganisationsRepository,
} from '@em/core/testing';
import { callers } from '../test-principals';
import { AccountService } from './account.service';

async function setup() {
  const organisations = new InMemoryOrganisationsRepository();
  const accounts = new InMemoryAccountsRepository();
  const memberships = new InMemoryMembershipsRepository(accounts, organisations);
  const zeta = await organisations.create({ name: 'Zeta', slug: 'zeta' });
  const alpha = await organisations.create({ name: 'Alpha', slug: 'alpha' });
  const account = accounts.add({ email: 'runner@example.org' });
  await memberships.upsert(zeta.id, account.id, 'user', 'active');
  await memberships.upsert(alpha.id, account.id, 'admin', 'pending');
  return { zeta, alpha, account, accounts, memberships, service: new AccountService({ accounts, memberships }) };
}

describe('AccountService', () => {
  it('shows the account and its active organisations by name; API keys get 403', async () => {
    const { account, zeta, service } = await setup();
    const principal = { ...callers.user(zeta.id), accountId: account.id, scopes: ['events:write', 'events:read'] };
    expect(await service.current(principal)).toEqual({
      accountLabel: 'runner@example.org',
      scopes: ['events:read', 'events:write'],
      organisations: [{ orgId: zeta.id, name: 'Zeta', slug: 'zeta', role: 'user' }],
    });
    await expect(service.current(callers.key(zeta.id))).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
