import { AppError, Principal } from '@em/core';
import {
  AccountsRepository,
  guardOrganisationOperation,
  MemberRecord,
  MembershipRole,
  MembershipsRepository,
  OrganisationsRepository,
} from '@em/core/data';
import { invalid } from '../events/event-settings';

/** Tells an invited member (the embedded provider mails a set-password link); absent when nothing is mailed. */
export interface InvitationMail {
  send(invite: { orgId: number; organisationName: string; email: string; role: MembershipRole }): Promise<void>;
}

export interface MemberRepositories {
  accounts: Pick<AccountsRepository, 'findOrCreate' | 'findById'>;
  memberships: MembershipsRepository;
  organisations: Pick<OrganisationsRepository, 'findById'>;
}

// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const EMAIL = /^[^\s@\u0000-\u001f\u007f]{1,64}@[^\s@\u0000-\u001f\u007f]+\.[^\s@\u0000-\u001f\u007f]+$/;

export function email(value: string): string {
  const normalised = (value ?? '').trim().toLowerCase();
  if (normalised.length > 254 || !EMAIL.test(normalised)) throw invalid('email', 'email must be an e-mail address');
  return normalised;
}

export function role(value: string): MembershipRole {
  if (value !== 'admin' && value !== 'user') throw invalid('role', 'role must be admin or user');
  return value;
}

/**
 * Members of an organisation: invited by e-mail with a role. An invitation stays `pending` until
 * the account first signs in; an account that has signed in before is a member at once.
 */
export class MembersService {
  constructor(
    private readonly repos: MemberRepositories,
    private readonly mail: InvitationMail | null = null,
  ) {}

  async list(principal: Principal, orgId: number): Promise<MemberRecord[]> {
    guardOrganisationOperation(principal, 'members', orgId);
    return this.repos.memberships.listForOrganisation(orgId);
  }

  async invite(
    principal: Principal,
    orgId: number,
    emailAddress: string,
    memberRole: string,
  ): Promise<MemberRecord & { invitationMailed: boolean }> {
    guardOrganisationOperation(principal, 'inviteMember', orgId);
    const address = email(emailAddress);
    const wanted = role(memberRole);
    const organisation = await this.repos.organisations.findById(orgId);
    if (!organisation) throw new AppError('NOT_FOUND', 'Organisation not found');
    const account = await this.repos.accounts.findOrCreate(address);
    const existing = await this.repos.memberships.find(orgId, account.id);
    if (existing && existing.role === 'admin' && wanted !== 'admin') await this.keepAnAdmin(orgId, account.id);
    const status = existing?.status === 'active' || account.subject ? 'active' : 'pending';
    const member = await this.repos.memberships.upsert(orgId, account.id, wanted, status);
    // A new member, or one who has not come yet, is told; a role change of an active member is not an invitation.
    const mailed = !!this.mail && existing?.status !== 'active';
    if (mailed) await this.mail?.send({ orgId, organisationName: organisation.name, email: address, role: wanted });
    return { ...member, invitationMailed: mailed };
  }

  async setRole(principal: Principal, orgId: number, accountId: number, memberRole: string): Promise<MemberRecord> {
    guardOrganisationOperation(principal, 'setMemberRole', orgId);
    const wanted = role(memberRole);
    const member = await this.find(orgId, accountId);
    if (member.role === 'admin' && wanted !== 'admin') await this.keepAnAdmin(orgId, accountId);
    return (await this.repos.memberships.setRole(orgId, accountId, wanted))!;
  }

  async remove(principal: Principal, orgId: number, accountId: number): Promise<boolean> {
    guardOrganisationOperation(principal, 'removeMember', orgId);
    const member = await this.find(orgId, accountId);
    if (member.role === 'admin') await this.keepAnAdmin(orgId, accountId);
    return this.repos.memberships.remove(orgId, accountId);
  }

  private async find(orgId: number, accountId: number): Promise<MemberRecord> {
    const member =
      Number.isSafeInteger(accountId) && accountId > 0 ? await this.repos.memberships.find(orgId, accountId) : null;
    if (!member) throw new AppError('NOT_FOUND', 'No such member of this organisation');
    return member;
  }

  /** The last active admin stays: an organisation without one could not be administered by its members. */
  private async keepAnAdmin(orgId: number, accountId: number): Promise<void> {
    const member = await this.repos.memberships.find(orgId, accountId);
    if (member?.status === 'active' && (await this.repos.memberships.countActiveAdmins(orgId)) <= 1) {
      throw new AppError('CONFLICT', 'This is the last admin of the organisation: make another member admin first');
    }
  }
}
