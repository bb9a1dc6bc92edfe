import { EntityManager } from '@mikro-orm/core';
import { LocalCredential } from '../db/entities';

export interface LocalCredentialRecord {
  accountId: number;
  passwordHash: string | null;
  emailVerified: boolean;
}

/** Every query of `local_credentials` (the embedded identity provider's passwords and set-password links). */
export interface LocalCredentialsRepository {
  find(accountId: number): Promise<LocalCredentialRecord | null>;
  /** Stores a set-password link's token hash (replacing an earlier link of the account). */
  storeSetPasswordToken(accountId: number, tokenHash: string, expiresAt: Date): Promise<void>;
  /** The account of an unexpired link's token hash, or null. */
  findBySetPasswordToken(tokenHash: string, now: Date): Promise<number | null>;
  /**
   * Sets the password and uses up the link of `tokenHash` in one statement (a link works once);
   * false when that link is unknown, used or expired. The e-mail counts as verified from then on.
   */
  setPasswordWithToken(tokenHash: string, passwordHash: string, now: Date): Promise<number | null>;
  /** Sets the password directly (the operator vouches for the address: the demo seed, the CLI). */
  setPassword(accountId: number, passwordHash: string): Promise<void>;
}

export class SqlLocalCredentialsRepository implements LocalCredentialsRepository {
  constructor(private readonly em: () => EntityManager) {}

  async find(accountId: number) {
    const found = await this.em().findOne(LocalCredential, { accountId });
    return (
      found && {
        accountId: found.accountId,
        passwordHash: found.passwordHash ?? null,
        emailVerified: found.emailVerified,
      }
    );
  }

  async storeSetPasswordToken(accountId: number, tokenHash: string, expiresAt: Date) {
    await this.em().upsert(
      LocalCredential,
      { accountId, setPasswordTokenHash: tokenHash, setPasswordExpiresAt: expiresAt, updatedAt: new Date() },
      {
        onConflictFields: ['accountId'],
        onConflictMergeFields: ['setPasswordTokenHash', 'setPasswordExpiresAt', 'updatedAt'],
      },
    );
  }

  async findBySetPasswordToken(tokenHash: string, now: Date) {
    const found = await this.em().findOne(LocalCredential, {
      setPasswordTokenHash: tokenHash,
      setPasswordExpiresAt: { $gt: now },
    });
    return found?.accountId ?? null;
  }

  async setPasswordWithToken(tokenHash: string, passwordHash: string, now: Date) {
    const rows = (await this.em()
      .getConnection()
      .execute(
        `update "local_credentials" set "password_hash" = ?, "email_verified" = true, "set_password_token_hash" = null,
         "set_password_expires_at" = null, "updated_at" = ?
       where "set_password_token_hash" = ? and "set_password_expires_at" > ? returning "account_id"`,
        [passwordHash, now, tokenHash, now],
      )) as Array<{ account_id: number }>;
    return rows[0]?.account_id ?? null;
  }

  async setPassword(accountId: number, passwordHash: string) {
    await this.em().upsert(
      LocalCredential,
      { accountId, passwordHash, emailVerified: true, updatedAt: new Date() },
      {
        onConflictFields: ['accountId'],
        onConflictMergeFields: ['passwordHash', 'emailVerified', 'updatedAt'],
      },
    );
  }
}
