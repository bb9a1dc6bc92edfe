import type { MembershipRole, MembershipStatus } from '../../db/entities';
import type { MemberRecord, MembershipsRepository } from '../memberships.repository';
import type { InMemoryAccountsRepository } from './accounts.fake';
import type { InMemoryOrganisationsRepository } from './organisations.fake';

export class InMemoryMembershipsRepository implements MembershipsRepository {
  readonly rows: Array<{
    orgId: number;
    accountId: number;
    role: MembershipRole;
    status: MembershipStatus;
    createdAt: Date;
  }> = [];

  constructor(
    private readonly accounts: InMemoryAccountsRepository,
    private readonly organisations: InMemoryOrganisationsRepository,
  ) {}

  async activeRoles(accountId: number) {
    return Object.fromEntries(
      this.rows.filter((m) => m.accountId === accountId && m.status === 'active').map((m) => [m.orgId, m.role]),
    );
  }
  async activeOrganisations(accountId: number) {
    return this.rows
      .filter((m) => m.accountId === accountId && m.status === 'active')
      .map((m) => {
        const org = this.organisations.rows.find((o) => o.id === m.orgId)!;
        return { orgId: m.orgId, name: org.name, slug: org.slug, role: m.role };
      });
  }
  async listForOrganisation(orgId: number) {
    return this.rows.filter((m) => m.orgId === orgId).map((m) => this.record(m));
  }
  async find(orgId: number, accountId: number) {
    const row = this.rows.find((m) => m.orgId === orgId && m.accountId === accountId);
    return row ? this.record(row) : null;
  }
  async upsert(orgId: number, accountId: number, role: MembershipRole, status: MembershipStatus) {
    let row = this.rows.find((m) => m.orgId === orgId && m.accountId === accountId);
    if (!row) this.rows.push((row = { orgId, accountId, role, status, createdAt: new Date() }));
    Object.assign(row, { role, status });
    return this.record(row);
  }
  async activatePending(accountId: number) {
    for (const m of this.rows) if (m.accountId === accountId && m.status === 'pending') m.status = 'active';
  }
  async setRole(orgId: number, accountId: number, role: MembershipRole) {
    const row = this.rows.find((m) => m.orgId === orgId && m.accountId === accountId);
    if (!row) return null;
    row.role = role;
    return this.record(row);
  }
  async remove(orgId: number, accountId: number) {
    const i = this.rows.findIndex((m) => m.orgId === orgId && m.accountId === accountId);
    if (i >= 0) this.rows.splice(i, 1);
    return i >= 0;
  }
  async countActiveAdmins(orgId: number) {
    return this.rows.filter((m) => m.orgId === orgId && m.role === 'admin' && m.status === 'active').length;
  }
  private record(m: InMemoryMembershipsRepository['rows'][number]): MemberRecord {
    return { ...m, email: this.accounts.rows.find((a) => a.id === m.accountId)!.email };
  }
}
