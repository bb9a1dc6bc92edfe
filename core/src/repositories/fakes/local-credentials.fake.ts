import type { LocalCredentialRecord, LocalCredentialsRepository } from '../local-credentials.repository';

interface Row extends LocalCredentialRecord {
  tokenHash: string | null;
  expiresAt: Date | null;
}

export class InMemoryLocalCredentialsRepository implements LocalCredentialsRepository {
  readonly rows = new Map<number, Row>();

  private row(accountId: number): Row {
    const row = this.rows.get(accountId) ?? {
      accountId,
      passwordHash: null,
      emailVerified: false,
      tokenHash: null,
      expiresAt: null,
    };
    this.rows.set(accountId, row);
    return row;
  }
  async find(accountId: number) {
    const row = this.rows.get(accountId);
    return row ? { accountId, passwordHash: row.passwordHash, emailVerified: row.emailVerified } : null;
  }
  async storeSetPasswordToken(accountId: number, tokenHash: string, expiresAt: Date) {
    Object.assign(this.row(accountId), { tokenHash, expiresAt });
  }
  async findBySetPasswordToken(tokenHash: string, now: Date) {
    return [...this.rows.values()].find((r) => r.tokenHash === tokenHash && r.expiresAt! > now)?.accountId ?? null;
  }
  async setPasswordWithToken(tokenHash: string, passwordHash: string, now: Date) {
    const row = [...this.rows.values()].find((r) => r.tokenHash === tokenHash && r.expiresAt! > now);
    if (!row) return null;
    Object.assign(row, { passwordHash, emailVerified: true, tokenHash: null, expiresAt: null });
    return row.accountId;
  }
  async setPassword(accountId: number, passwordHash: string) {
    Object.assign(this.row(accountId), { passwordHash, emailVerified: true });
  }
}
