import { EntityManager } from '@mikro-orm/core';
import { Account, Membership } from '../db/entities';
import { AppError } from '../errors';
import { TokenClaims } from './tokens';

export interface LinkedAccount {
  accountId: number;
  orgRoles: Record<number, 'admin' | 'user'>;
}

/**
 * The account behind a verified token: by the token's subject, else (first sign-in) by its e-mail,
 * which links the subject to the account. No account, or an inactive one: 403.
 */
export async function linkAccount(em: EntityManager, claims: TokenClaims): Promise<LinkedAccount> {
  let account = await em.findOne(Account, { subject: claims.subject });
  if (!account && claims.email) {
    account = await em.findOne(Account, { email: claims.email, subject: null });
    if (account) {
      account.subject = claims.subject;
      await em.flush();
    }
  }
  if (!account) throw new AppError('FORBIDDEN', 'No account is linked to this token');
  if (!account.active) throw new AppError('FORBIDDEN', 'The account is inactive');
  const memberships = await em.find(Membership, { account, status: 'active' });
  const orgRoles: Record<number, 'admin' | 'user'> = {};
  for (const m of memberships) orgRoles[m.organisation.id] = m.role;
  return { accountId: account.id, orgRoles };
}
