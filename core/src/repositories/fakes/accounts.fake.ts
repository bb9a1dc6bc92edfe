import type { AccountRecord, AccountsRepository } from '../accounts.repository';

export class InMemoryAccountsRepository implements AccountsRepository {
  readonly rows: AccountRecord[] = [];

  add(fields: Partial<AccountRecord> & { email: string }): AccountRecord {
    const row = { id: this.rows.length + 1, subject: null, active: true, platformAdmin: false, ...fields };
    this.rows.push(row);
    return row;
  }
  async findById(id: number) {
    return this.copy(this.rows.find((a) => a.id === id));
  }
  async findByEmail(email: string) {
    return this.copy(this.rows.find((a) => a.email === email));
  }
  async findBySubject(subject: string) {
    return this.copy(this.rows.find((a) => a.subject === subject));
  }
  async linkSubjectByEmail(email: string, subject: string) {
    const row = this.rows.find((a) => a.email === email && a.subject === null);
    if (row) row.subject = subject;
    return this.copy(row);
  }
  async findOrCreate(email: string) {
    return this.copy(this.rows.find((a) => a.email === email) ?? this.add({ email }))!;
  }
  async setPlatformAdmin(id: number, platformAdmin: boolean) {
    const row = this.rows.find((a) => a.id === id);
    if (row) row.platformAdmin = platformAdmin;
  }
  async setActive(id: number, active: boolean) {
    const row = this.rows.find((a) => a.id === id);
    if (row) row.active = active;
  }
  private copy(row: AccountRecord | undefined) {
    return row ? { ...row } : null;
  }
}
