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
 * which links the subject to the account, but only when the issuer says the e-mail is verified:
 * anyone can register an unverified address at some identity providers. No account, an
 * unverified e-mail, or an inactive account: 403.
 */
export async function linkAccount(em: EntityManager, claims: TokenClaims): Promise<LinkedAccount> {
  let account = await em.findOne(Account, { subject: claims.subject });
  if (!account && claims.email) {
    if (!claims.emailVerified) {
      throw new AppError('FORBIDDEN', 'The token\'s e-mail is not verified (email_verified): an account is linked by a verified e-mail only');
    }
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
