import { AppError, TokenClaims } from '@em/core';
import type { AccountsRepository, MembershipsRepository } from '@em/core/data';

export interface LinkedAccount {
  accountId: number;
  orgRoles: Record<number, 'admin' | 'user'>;
  platformAdmin: boolean;
}

/** The tables an account is found in. */
export interface AccountDirectory {
  accounts: AccountsRepository;
  memberships: Pick<MembershipsRepository, 'activeRoles' | 'activatePending'>;
}

/**
 * The account behind a verified token: by the token's subject, else (first sign-in) by its e-mail,
 * which links the subject to the account, but only when the issuer says the e-mail is verified:
 * anyone can register an unverified address at some identity providers. The first sign-in also
 * accepts the account's pending invitations. No account, an unverified e-mail, or an inactive account: 403.
 */
export async function linkAccount(directory: AccountDirectory, claims: TokenClaims): Promise<LinkedAccount> {
  let account = await directory.accounts.findBySubject(claims.subject);
  if (!account && claims.email) {
    if (!claims.emailVerified) {
      throw new AppError(
        'FORBIDDEN',
        "The token's e-mail is not verified (email_verified): an account is linked by a verified e-mail only",
      );
    }
    account =
      (await directory.accounts.linkSubjectByEmail(claims.email, claims.subject)) ??
      // A concurrent first request with the same token may have linked the account a moment ago.
      (await directory.accounts.findBySubject(claims.subject));
    if (account?.active) await directory.memberships.activatePending(account.id);
  }
  if (!account) throw new AppError('FORBIDDEN', 'No account is linked to this token');
  if (!account.active) throw new AppError('FORBIDDEN', 'The account is inactive');
  return {
    accountId: account.id,
    orgRoles: await directory.memberships.activeRoles(account.id),
    platformAdmin: account.platformAdmin,
  };
}
