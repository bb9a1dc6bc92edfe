import { ContentVersions } from '@em/core';
import { InMemoryEventsRepository, InMemoryOrganisationsRepository } from '@em/core/testing';
import { callers } from '../test-principals';
import { EventAdminService } from './event-admin.service';
import { EventsService } from './events.service';

async function setup() {
  const events = new InMemoryEventsRepository();
  const organisations = new InMemoryOrganisationsRepository();
  const store = { publicUrl: (k: string) => `https://media/${k}` };
  const admin = new EventAdminService(
    { events, organisations },
    { start: async () => undefined, status: async () => null },
    store,
    new ContentVersions(events, null),
  );
  const org = await organisations.create({ name: 'Club', slug: 'club' });
  return { org, admin, events, service: new EventsService(events, store) };
}

describe('EventsService', () => {
  it('lists the organisation events, latest date first, undated last, for members and its keys', async () => {
    const { org, admin, service } = await setup();
    await admin.create(callers.admin(org.id), org.id, { name: 'Undated' });
    await admin.create(callers.admin(org.id), org.id, { name: 'Old', eventDate: '2025-05-01' });
    await admin.create(callers.admin(org.id), org.id, { name: 'New', eventDate: '2026-05-01T09:30' });
    const page = await service.list(callers.key(org.id), org.id);
    expect(page.items.map((e) => [e.name, e.eventDate])).toEqual([
      ['New', '2026-05-01T09:30:00'],
      ['Old', '2025-05-01T00:00:00'],
      ['Undated', null],
    ]);
    await expect(service.list(callers.key(org.id + 1), org.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it("never lists the organiser's drafts to a read-only (browser) key; other keys and members see them", async () => {
    const { org, admin, service } = await setup();
    await admin.create(callers.admin(org.id), org.id, { name: 'Draft', status: 'draft' });
    await admin.create(callers.admin(org.id), org.id, { name: 'Live', status: 'active' });
    const browserKey = { ...callers.key(org.id), readOnly: true };
    const seen = await service.list(browserKey, org.id);
    expect(seen.items.map((e) => e.name)).toEqual(['Live']);
    expect(seen.pageInfo).toMatchObject({ total: 1 });
    expect((await service.list(callers.key(org.id), org.id)).items.map((e) => e.name).sort()).toEqual([
      'Draft',
      'Live',
    ]);
  });

  it('lists to a key limited to some events those only, refuses it the others and their references', async () => {
    const { org, admin, service } = await setup();
    const mine = await admin.create(callers.admin(org.id), org.id, { name: 'Mine', status: 'active' });
    const other = await admin.create(callers.admin(org.id), org.id, { name: 'Other', status: 'active' });
    const scoped = { ...callers.key(org.id), eventIds: [mine.id] };
    const seen = await service.list(scoped, org.id);
    expect(seen.items.map((e) => e.name)).toEqual(['Mine']);
    expect(seen.pageInfo).toMatchObject({ total: 1 });
    await expect(service.details(scoped, org.id, other.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await service.byReference(scoped, other.id)).toBeNull();
    expect(await service.byReference(scoped, mine.id)).toMatchObject({ name: 'Mine' });
  });

  it('shows one event with its settings; an event being deleted is gone (404, null reference)', async () => {
    const { org, admin, events, service } = await setup();
    const created = await admin.create(callers.admin(org.id), org.id, {
      name: 'E',
      watermarkText: 'Club 2026',
      videoSearch: true,
      videoSelfieSearch: true,
    });
    expect(await service.details(callers.user(org.id), org.id, created.id)).toMatchObject({
      watermarkText: 'Club 2026',
      videoSelfieSearch: true,
      clipMaxDurationSeconds: 30,
    });
    await events.markDeleting(created.id, new Date());
    await expect(service.details(callers.user(org.id), org.id, created.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await service.byReference(callers.user(org.id), created.id)).toBeNull();
  });
});
