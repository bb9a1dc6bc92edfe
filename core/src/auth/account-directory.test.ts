import { AccountRecord, AccountsRepository } from '../repositories/accounts.repository';
import { AccountDirectory, linkAccount } from './account-directory';
import { TokenClaims } from './tokens';

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
