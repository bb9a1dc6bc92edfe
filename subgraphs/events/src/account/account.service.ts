import { AppError, Principal } from '@em/core';
import { Account, Membership, Orm } from '@em/core/data';
import type { AccountType } from './account.types';

export class AccountService {
  constructor(private readonly orm: Orm) {}

  /** The signed-in account (OAuth bearer only) and its organisations. */
  async current(principal: Principal): Promise<AccountType> {
    if (principal.kind !== 'account') throw new AppError('FORBIDDEN', 'The account endpoint needs an OAuth bearer token, not an API key');
    if (!principal.scopes.includes('events:read')) throw new AppError('FORBIDDEN', 'The token lacks the scope events:read');
    const account = principal.accountId ? await this.orm.em.findOne(Account, { id: principal.accountId }) : null;
    if (!account) throw new AppError('FORBIDDEN', 'No account is linked to this token');
    if (!account.active) throw new AppError('FORBIDDEN', 'The account is inactive');
    const memberships = await this.orm.em.find(Membership, { account, status: 'active' }, { populate: ['organisation'] });
    const organisations = memberships
      .map((m) => ({ orgId: m.organisation.id, name: m.organisation.name, slug: m.organisation.slug, role: m.role }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.orgId - b.orgId);
    return { accountLabel: account.email, scopes: [...principal.scopes].sort(), organisations };
  }
}
