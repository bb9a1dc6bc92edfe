import { AppError, Principal } from '@em/core';
import { AccountRecord, AccountsRepository, assertPlatformAdmin, MembershipsRepository } from '@em/core/data';
import { email } from '../members/members.service';
import type { AccountType } from './account.types';

export interface AccountRepositories {
  accounts: Pick<AccountsRepository, 'findById' | 'findOrCreate' | 'setPlatformAdmin'>;
  memberships: Pick<MembershipsRepository, 'activeOrganisations'>;
}

export class AccountService {
  constructor(private readonly repos: AccountRepositories) {}

  /** The signed-in account (OAuth bearer only) and its organisations. */
  async current(principal: Principal): Promise<AccountType> {
    if (principal.kind !== 'account')
      throw new AppError('FORBIDDEN', 'The account endpoint needs an OAuth bearer token, not an API key');
    if (!principal.scopes.includes('events:read'))
      throw new AppError('FORBIDDEN', 'The token lacks the scope events:read');
    const account = principal.accountId ? await this.repos.accounts.findById(principal.accountId) : null;
    if (!account) throw new AppError('FORBIDDEN', 'No account is linked to this token');
    if (!account.active) throw new AppError('FORBIDDEN', 'The account is inactive');
    const organisations = (await this.repos.memberships.activeOrganisations(account.id)).sort(
      (a, b) => a.name.localeCompare(b.name) || a.orgId - b.orgId,
    );
    return { accountLabel: account.email, scopes: [...principal.scopes].sort(), organisations };
  }

  /** Makes the account of this e-mail (created when missing) a platform administrator: the CLI's `create-admin`, no API field. */
  async grantPlatformAdmin(principal: Principal, address: string): Promise<AccountRecord> {
    assertPlatformAdmin(principal);
    const account = await this.repos.accounts.findOrCreate(email(address));
    await this.repos.accounts.setPlatformAdmin(account.id, true);
    return { ...account, platformAdmin: true };
  }
}
