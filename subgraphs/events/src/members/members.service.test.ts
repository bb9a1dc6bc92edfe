import {
  InMemoryAccountsRepository,
  InMemoryMembershipsRepository,
  InMemoryOrganisationsRepository,
} from '@em/core/testing';
import { callers } from '../test-principals';
import { InvitationMail, MembersService } from './members.service';

async function setup(mail: InvitationMail | null = null) {
  const organisations = new InMemoryOrganisationsRepository();
  const accounts = new InMemoryAccountsRepository();
  const memberships = new InMemoryMembershipsRepository(accounts, organisations);
  const org = await organisations.create({ name: 'Club', slug: 'club' });
  const admin = accounts.add({ email: 'admin@example.org', subject: 'sub-admin' });
  await memberships.upsert(org.id, admin.id, 'admin', 'active');
  return {
    org,
    admin,
    accounts,
    memberships,
    service: new MembersService({ accounts, memberships, organisations }, mail),
  };
}

describe('MembersService', () => {
  it('invites: pending for an account that never signed in, active for one that has', async () => {
    const { org, admin, accounts, service } = await setup();
    expect(await service.invite(callers.admin(org.id, admin.id), org.id, ' New@Example.org ', 'user')).toMatchObject({
      email: 'new@example.org',
      role: 'user',
      status: 'pending',
    });
    accounts.add({ email: 'known@example.org', subject: 'sub-known' });
    expect(await service.invite(callers.admin(org.id, admin.id), org.id, 'known@example.org', 'admin')).toMatchObject({
      role: 'admin',
      status: 'active',
    });
    expect((await service.list(callers.admin(org.id), org.id)).map((m) => m.email)).toEqual([
      'admin@example.org',
      'new@example.org',
      'known@example.org',
    ]);
  });

  it('mails an invitation to a new or still pending member, not on a role change of an active one', async () => {
    const sent: Parameters<InvitationMail['send']>[0][] = [];
    const { org, admin, accounts, service } = await setup({ send: async (invite) => void sent.push(invite) });
    expect(await service.invite(callers.admin(org.id, admin.id), org.id, 'New@Example.org', 'user')).toMatchObject({
      invitationMailed: true,
    });
    await service.invite(callers.admin(org.id, admin.id), org.id, 'new@example.org', 'admin');
    accounts.add({ email: 'known@example.org', subject: 'sub-known' });
    await service.invite(callers.admin(org.id, admin.id), org.id, 'known@example.org', 'user');
    await service.invite(callers.admin(org.id, admin.id), org.id, 'known@example.org', 'admin');
    expect(await service.invite(callers.admin(org.id, admin.id), org.id, 'admin@example.org', 'admin')).toMatchObject({
      invitationMailed: false,
    });
    expect(sent).toEqual([
      { orgId: org.id, organisationName: 'Club', email: 'new@example.org', role: 'user' },
      { orgId: org.id, organisationName: 'Club', email: 'new@example.org', role: 'admin' },
      { orgId: org.id, organisationName: 'Club', email: 'known@example.org', role: 'user' },
    ]);
  });

  it('mails nothing when the invitation is refused', async () => {
    const sent: unknown[] = [];
    const { org, admin, service } = await setup({ send: async (invite) => void sent.push(invite) });
    await expect(service.invite(callers.admin(org.id, admin.id), org.id, 'not-an-address', 'user')).rejects.toThrow();
    await expect(service.invite(callers.user(org.id), org.id, 'x@example.org', 'user')).rejects.toThrow();
    expect(sent).toEqual([]);
  });

  it('validates the e-mail and role', async () => {
    const { org, service } = await setup();
    await expect(service.invite(callers.admin(org.id), org.id, 'not-an-email', 'user')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'email' },
    });
    await expect(
      service.invite(callers.admin(org.id), org.id, `${'a'.repeat(250)}@x.org`, 'user'),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    await expect(service.invite(callers.admin(org.id), org.id, 'a@b.org', 'owner')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'role' },
    });
  });

  it('lets only admins manage members; API keys and users get 403', async () => {
    const { org, service } = await setup();
    for (const caller of [callers.key(org.id), callers.user(org.id), callers.admin(org.id + 1)]) {
      await expect(service.list(caller, org.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(service.invite(caller, org.id, 'x@example.org', 'admin')).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
    }
  });

  it('changes roles and removes members, but keeps the last admin', async () => {
    const { org, admin, service } = await setup();
    const member = await service.invite(callers.admin(org.id), org.id, 'm@example.org', 'user');
    expect((await service.setRole(callers.admin(org.id), org.id, member.accountId, 'admin')).role).toBe('admin');
    // m has not signed in yet (pending): the admin who has is the last active one
    await expect(service.setRole(callers.admin(org.id), org.id, admin.id, 'user')).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(service.remove(callers.admin(org.id), org.id, admin.id)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await service.remove(callers.admin(org.id), org.id, member.accountId)).toBe(true);
    await expect(service.remove(callers.admin(org.id), org.id, member.accountId)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
