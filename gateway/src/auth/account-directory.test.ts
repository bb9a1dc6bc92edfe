import { TokenClaims } from '@em/core';
import { AccountRecord, AccountsRepository } from '@em/core/data';
import {
  InMemoryAccountsRepository,
  InMemoryMembershipsRepository,
  InMemoryOrganisationsRepository,
} from '@em/core/testing';
import { AccountDirectory, linkAccount } from './account-directory';

const claims = { subject: 'sub-1', email: 'viewer@example.com', emailVerified: true } as TokenClaims;
const account: AccountRecord = {
  id: 7,
  email: 'viewer@example.com',
  subject: null,
  active: true,
  platformAdmin: false,
};

/** Accounts where the subject is linked once; `linkedByAnother`: a concurrent request linked it first. */
function directory(linkedByAnother: boolean) {
  let subject: string | null = null;
  const findBySubject = jest.fn(async (s: string) => (subject === s ? { ...account, subject } : null));
  const accounts = {
    findBySubject,
    linkSubjectByEmail: jest.fn(async (_email: string, s: string) => {
      if (linkedByAnother || subject) {
        subject = s;
        return null;
      }
      subject = s;
      return { ...account, subject };
    }),
  } as unknown as AccountsRepository;
  const memberships = { activeRoles: jest.fn(async () => ({ 3: 'user' as const })), activatePending: jest.fn() };
  return { directory: { accounts, memberships } as AccountDirectory, findBySubject };
}

describe('linking a token to its account on the first sign-in', () => {
  it('links by the verified e-mail', async () => {
    await expect(linkAccount(directory(false).directory, claims)).resolves.toEqual({
      accountId: 7,
      orgRoles: { 3: 'user' },
      platformAdmin: false,
    });
  });

  it('finds the account a concurrent first request with the same token linked a moment before', async () => {
    const { directory: d, findBySubject } = directory(true);
    await expect(linkAccount(d, claims)).resolves.toMatchObject({ accountId: 7 });
    expect(findBySubject).toHaveBeenCalledTimes(2);
  });

  it('still refuses a token no account has', async () => {
    const stranger = { ...claims, email: 'nobody@example.com', subject: 'sub-2' } as TokenClaims;
    const { directory: d } = directory(false);
    d.accounts.linkSubjectByEmail = jest.fn(async () => null);
    await expect(linkAccount(d, stranger)).rejects.toThrow('No account is linked to this token');
  });
});

describe('linkAccount with invitations', () => {
  it('accepts pending invitations at the first sign-in (a verified e-mail links the subject)', async () => {
    const organisations = new InMemoryOrganisationsRepository();
    const accounts = new InMemoryAccountsRepository();
    const memberships = new InMemoryMembershipsRepository(accounts, organisations);
    const zeta = await organisations.create({ name: 'Zeta', slug: 'zeta' });
    const alpha = await organisations.create({ name: 'Alpha', slug: 'alpha' });
    const runner = accounts.add({ email: 'runner@example.org' });
    await memberships.upsert(zeta.id, runner.id, 'user', 'active');
    await memberships.upsert(alpha.id, runner.id, 'admin', 'pending');
    await expect(
      linkAccount(
        { accounts, memberships },
        { subject: 's1', email: 'runner@example.org', emailVerified: false, scopes: [] },
      ),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const linked = await linkAccount(
      { accounts, memberships },
      { subject: 's1', email: 'runner@example.org', emailVerified: true, scopes: [] },
    );
    expect(linked).toEqual({
      accountId: runner.id,
      orgRoles: { [zeta.id]: 'user', [alpha.id]: 'admin' },
      platformAdmin: false,
    });
    expect(
      (await linkAccount({ accounts, memberships }, { subject: 's1', email: null, emailVerified: false, scopes: [] }))
        .accountId,
    ).toBe(runner.id);
  });
});
