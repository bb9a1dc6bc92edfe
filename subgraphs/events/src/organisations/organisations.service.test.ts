import {
  InMemoryAccountsRepository,
  InMemoryMembershipsRepository,
  InMemoryOrganisationsRepository,
} from '@em/core/testing';
import { callers } from '../test-principals';
import { OrganisationsService } from './organisations.service';

function setup() {
  const organisations = new InMemoryOrganisationsRepository();
  const accounts = new InMemoryAccountsRepository();
  const memberships = new InMemoryMembershipsRepository(accounts, organisations);
  return { organisations, accounts, memberships, service: new OrganisationsService({ organisations, memberships }) };
}

describe('OrganisationsService', () => {
  it('lets only platform administrators create organisations; the creator becomes its admin', async () => {
    const { service, accounts, memberships } = setup();
    const creator = accounts.add({ email: 'root@example.org', platformAdmin: true });
    const org = await service.create(callers.platform(creator.id), { name: 'Running Club' }, creator.id);
    expect(org).toMatchObject({ name: 'Running Club', slug: 'running-club' });
    expect(await memberships.find(org.id, creator.id)).toMatchObject({ role: 'admin', status: 'active' });
    for (const caller of [callers.admin(org.id), callers.key(org.id), callers.user(org.id)]) {
      await expect(service.create(caller, { name: 'Mine' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    }
  });

  it('validates the name and slug and refuses a slug in use (409)', async () => {
    const { service } = setup();
    await expect(service.create(callers.platform(), { name: ' ' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'name' },
    });
    await expect(service.create(callers.platform(), { name: 'X', slug: '-bad-' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'slug' },
    });
    await service.create(callers.platform(), { name: 'Club' });
    await expect(service.create(callers.platform(), { name: 'Club' })).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('lists what the caller may see', async () => {
    const { service } = setup();
    const a = await service.create(callers.platform(), { name: 'Beta' });
    const b = await service.create(callers.platform(), { name: 'Alpha' });
    expect((await service.list(callers.platform())).map((o) => o.name)).toEqual(['Alpha', 'Beta']);
    expect((await service.list(callers.admin(a.id))).map((o) => [o.id, o.role])).toEqual([[a.id, 'admin']]);
    expect((await service.list(callers.key(b.id))).map((o) => [o.id, o.role])).toEqual([[b.id, null]]);
    await expect(service.details(callers.admin(a.id), b.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('renames for admins only', async () => {
    const { service } = setup();
    const org = await service.create(callers.platform(), { name: 'Old' });
    expect((await service.rename(callers.admin(org.id), org.id, 'New')).name).toBe('New');
    await expect(service.rename(callers.user(org.id), org.id, 'Mine')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(service.rename(callers.key(org.id), org.id, 'Mine')).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
