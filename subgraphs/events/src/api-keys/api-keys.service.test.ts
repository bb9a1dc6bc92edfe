import { hashApiKey } from '@em/core';
import { ApiKeyService } from './api-key-service';
import { InMemoryApiKeysRepository, InMemoryEventsRepository, InMemoryOrganisationsRepository } from '@em/core/testing';
import { callers } from '../test-principals';
import { ApiKeysService } from './api-keys.service';

async function setup(max = 2) {
  const keys = new InMemoryApiKeysRepository();
  const organisations = new InMemoryOrganisationsRepository();
  const org = await organisations.create({ name: 'Club', slug: 'club' });
  const events = new InMemoryEventsRepository();
  const changed: number[] = [];
  const service = new ApiKeysService(
    new ApiKeyService({ keys, organisations, events }, max, async (id) => void changed.push(id)),
  );
  return { org, keys, events, service, changed };
}

describe('ApiKeysService', () => {
  it('creates a key shown once (only its hash is stored), lists, deactivates and deletes, announcing each change', async () => {
    const { org, keys, service, changed } = await setup();
    const { key, apiKey } = await service.create(callers.admin(org.id), org.id, {
      name: ' site ',
      allowedHosts: ['Photos.Example.org'],
    });
    expect(apiKey).toMatchObject({ name: 'site', active: true, allowedHosts: ['photos.example.org'] });
    expect((await keys.findByHash(hashApiKey(key)))?.id).toBe(apiKey.id);
    expect(await service.list(callers.admin(org.id), org.id)).toHaveLength(1);
    expect((await service.setActive(callers.admin(org.id), org.id, apiKey.id, false)).active).toBe(false);
    expect(await service.delete(callers.admin(org.id), org.id, apiKey.id)).toBe(true);
    expect(changed).toEqual([apiKey.id, apiKey.id]);
  });

  it('refuses API keys and non-admins (403), bad input (400) and keys over the limit', async () => {
    const { org, service } = await setup(1);
    await expect(service.create(callers.key(org.id), org.id, { name: 'k' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(service.create(callers.user(org.id), org.id, { name: 'k' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(service.create(callers.admin(org.id), org.id, { name: '' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(
      service.create(callers.admin(org.id), org.id, { name: 'k', allowedHosts: ['not a host!'] }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await service.create(callers.admin(org.id), org.id, { name: 'k' });
    await expect(service.create(callers.admin(org.id), org.id, { name: 'k2' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('limits a key to events of its organisation only: sorted, without repeats; none or a foreign event is a 400', async () => {
    const { org, events, service } = await setup();
    const [a, b] = [events.add({ orgId: org.id }), events.add({ orgId: org.id })];
    const foreign = events.add({ orgId: org.id + 1 });
    const { apiKey } = await service.create(callers.admin(org.id), org.id, {
      name: 'page',
      readOnly: true,
      eventIds: [b.id, a.id, b.id],
    });
    expect(apiKey).toMatchObject({ readOnly: true, eventIds: [a.id, b.id] });
    await expect(service.create(callers.admin(org.id), org.id, { name: 'k', eventIds: [] })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(
      service.create(callers.admin(org.id), org.id, { name: 'k', eventIds: [foreign.id] }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/not an event of organisation/) });
    await expect(service.create(callers.admin(org.id), org.id, { name: 'k', eventIds: [0] })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect((await service.create(callers.admin(org.id), org.id, { name: 'all' })).apiKey.eventIds).toBeNull();
  });

  it("does not touch another organisation's key", async () => {
    const { org, service } = await setup();
    const { apiKey } = await service.create(callers.admin(org.id), org.id, { name: 'k' });
    await expect(service.setActive(callers.admin(99), 99, apiKey.id, false)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
