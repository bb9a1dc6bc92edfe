import { EntityManager } from '@mikro-orm/core';
import { Membership, MembershipRole, MembershipStatus } from '../db/entities';
import { RepositorySource, repositoryHandle } from './repository-source';

export interface MemberRecord {
  orgId: number;
  accountId: number;
  email: string;
  role: MembershipRole;
  status: MembershipStatus;
  createdAt: Date;
}

export interface MembershipOrganisation {
  orgId: number;
  name: string;
  slug: string;
  role: MembershipRole;
}

/** Every query of `memberships`. */
export interface MembershipsRepository {
  /** The account's role in each organisation it is an active member of (pending invitations excluded). */
  activeRoles(accountId: number): Promise<Record<number, MembershipRole>>;
  /** The organisations the account is an active member of, with their names. */
  activeOrganisations(accountId: number): Promise<MembershipOrganisation[]>;
  /** Members and invitations of the organisation, oldest first. */
  listForOrganisation(orgId: number): Promise<MemberRecord[]>;
  find(orgId: number, accountId: number): Promise<MemberRecord | null>;
  /** Creates the membership, or changes its role (and status) when it exists. */
  upsert(orgId: number, accountId: number, role: MembershipRole, status: MembershipStatus): Promise<MemberRecord>;
  /** Pending invitations become memberships when the account first signs in. */
  activatePending(accountId: number): Promise<void>;
  setRole(orgId: number, accountId: number, role: MembershipRole): Promise<MemberRecord | null>;
  remove(orgId: number, accountId: number): Promise<boolean>;
  countActiveAdmins(orgId: number): Promise<number>;
}

const record = (m: Membership): MemberRecord => ({
  orgId: m.organisation.id,
  accountId: m.account.id,
  email: m.account.email,
  role: m.role,
  status: m.status,
  createdAt: m.createdAt,
});

export class SqlMembershipsRepository implements MembershipsRepository {
  private readonly em: () => EntityManager;

  constructor(source: RepositorySource) {
    this.em = repositoryHandle(source).em;
  }

  async activeRoles(accountId: number) {
    const roles: Record<number, MembershipRole> = {};
    for (const m of await this.em().find(Membership, { account: accountId, status: 'active' }))
      roles[m.organisation.id] = m.role;
    return roles;
  }

  async activeOrganisations(accountId: number) {
    const found = await this.em().find(
      Membership,
      { account: accountId, status: 'active' },
      { populate: ['organisation'] },
    );
    return found.map((m) => ({
      orgId: m.organisation.id,
      name: m.organisation.name,
      slug: m.organisation.slug,
      role: m.role,
    }));
  }

  async listForOrganisation(orgId: number) {
    const found = await this.em().find(
      Membership,
      { organisation: orgId },
      { populate: ['account'], orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
    );
    return found.map(record);
  }

  async find(orgId: number, accountId: number) {
    const found = await this.em().findOne(
      Membership,
      { organisation: orgId, account: accountId },
      { populate: ['account'] },
    );
    return found && record(found);
  }

  async upsert(orgId: number, accountId: number, role: MembershipRole, status: MembershipStatus) {
    const em = this.em();
    const found =
      (await em.findOne(Membership, { organisation: orgId, account: accountId }, { populate: ['account'] })) ??
      em.create(Membership, { organisation: orgId, account: accountId, role, status });
    found.role = role;
    found.status = status;
    await em.flush();
    await em.populate(found, ['account']);
    return record(found);
  }

  async activatePending(accountId: number) {
    await this.em().nativeUpdate(Membership, { account: accountId, status: 'pending' }, { status: 'active' });
  }

  async setRole(orgId: number, accountId: number, role: MembershipRole) {
    const em = this.em();
    const found = await em.findOne(Membership, { organisation: orgId, account: accountId }, { populate: ['account'] });
    if (!found) return null;
    found.role = role;
    await em.flush();
    return record(found);
  }

  async remove(orgId: number, accountId: number) {
    return (await this.em().nativeDelete(Membership, { organisation: orgId, account: accountId })) > 0;
  }

  countActiveAdmins(orgId: number) {
    return this.em().count(Membership, { organisation: orgId, role: 'admin', status: 'active' });
  }
}
