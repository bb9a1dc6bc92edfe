import { EntityManager } from '@mikro-orm/core';
import { Account } from '../db/entities';
import { RepositorySource, repositoryHandle } from './repository-source';

export interface AccountRecord {
  id: number;
  email: string;
  subject: string | null;
  active: boolean;
  platformAdmin: boolean;
}

/** Every query of `accounts`. */
export interface AccountsRepository {
  findById(id: number): Promise<AccountRecord | null>;
  findByEmail(email: string): Promise<AccountRecord | null>;
  findBySubject(subject: string): Promise<AccountRecord | null>;
  /** First sign-in: links the token's subject to the account of that e-mail that has none yet. */
  linkSubjectByEmail(email: string, subject: string): Promise<AccountRecord | null>;
  /** The account of this e-mail, created when missing (invitations, the CLI). */
  findOrCreate(email: string): Promise<AccountRecord>;
  setPlatformAdmin(id: number, platformAdmin: boolean): Promise<void>;
  setActive(id: number, active: boolean): Promise<void>;
}

const record = (a: Account): AccountRecord => ({
  id: a.id,
  email: a.email,
  subject: a.subject ?? null,
  active: a.active,
  platformAdmin: a.platformAdmin,
});

export class SqlAccountsRepository implements AccountsRepository {
  private readonly em: () => EntityManager;

  constructor(source: RepositorySource) {
    this.em = repositoryHandle(source).em;
  }

  async findById(id: number) {
    const found = await this.em().findOne(Account, { id });
    return found && record(found);
  }

  async findByEmail(email: string) {
    if (email.includes('\u0000')) return null; // no account holds a NUL (Postgres text cannot)
    const found = await this.em().findOne(Account, { email });
    return found && record(found);
  }

  async findBySubject(subject: string) {
    const found = await this.em().findOne(Account, { subject });
    return found && record(found);
  }

  async linkSubjectByEmail(email: string, subject: string) {
    const em = this.em();
    const found = await em.findOne(Account, { email, subject: null });
    if (!found) return null;
    found.subject = subject;
    await em.flush();
    return record(found);
  }

  async findOrCreate(email: string) {
    const em = this.em();
    const found = (await em.findOne(Account, { email })) ?? em.create(Account, { email });
    await em.flush();
    return record(found);
  }

  async setPlatformAdmin(id: number, platformAdmin: boolean) {
    await this.em().nativeUpdate(Account, { id }, { platformAdmin });
  }

  async setActive(id: number, active: boolean) {
    await this.em().nativeUpdate(Account, { id }, { active });
  }
}
