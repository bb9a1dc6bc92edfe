import type { Principal } from '@em/core';
import {
  apiKeyPrincipal,
  InMemoryAuditLogRepository,
  InMemoryEventsRepository,
  InMemoryObjectStore,
  InMemoryPhotosRepository,
} from '@em/core/testing';
import { PhotoReviewService } from './photo-review.service';

const ids = [
  '00000000-0000-4000-8000-000000000001',
  '00000000-0000-4000-8000-000000000002',
  '00000000-0000-4000-8000-000000000003',
];
const organiser = (orgId: number, role: 'admin' | 'user' = 'user', accountId = 3): Principal => ({
  kind: 'account',
  orgId: null,
  accountId,
  scopes: ['events:read', 'events:write'],
  orgRoles: { [orgId]: role },
});
const published = new Date(Date.UTC(2026, 5, 1));

function setup() {
  const events = new InMemoryEventsRepository();
  events.add({ id: 5, orgId: 1 });
  events.add({ id: 6, orgId: 2 });
  const photos = new InMemoryPhotosRepository(events);
  const store = new InMemoryObjectStore();
  const audit = new InMemoryAuditLogRepository();
  const bumped: number[] = [];
  const versions = { bumpContentVersion: async (eventId: number) => void bumped.push(eventId) };
  const service = new PhotoReviewService(events, photos, store.asStore, versions, audit);
  return { events, photos, store, audit, bumped, service };
}

describe('PhotoReviewService', () => {
  it('adds a bib participants find, and removes a read one whatever read it; each change bumped and audited', async () => {
    const { photos, service, bumped, audit } = setup();
    photos.add({ id: ids[0], eventId: 5, publishedAt: published, bibs: ['123'] });
    await service.addBib(organiser(1), 1, 5, ids[0], ' 4 5 6 ');
    expect((await photos.publishedWithBib(5, '456', { page: 1, offset: 0, pageSize: 10 })).ids).toEqual([ids[0]]);
    await service.removeBib(organiser(1), 1, 5, ids[0], '123');
    expect((await photos.publishedWithBib(5, '123', { page: 1, offset: 0, pageSize: 10 })).ids).toEqual([]);
    expect((await service.bibsOf([ids[0]])).map((b) => [b.bib, b.status, b.source])).toEqual([
      ['123', 'rejected', 'organiser'],
      ['456', 'accepted', 'organiser'],
    ]);
    expect(bumped).toEqual([5, 5]);
    expect(audit.entries.map((e) => [e.action, e.photoId, e.detail, e.actor])).toEqual([
      ['photo.add_bib', ids[0], { bib: '456' }, { kind: 'account', accountId: 3, apiKeyId: null }],
      ['photo.remove_bib', ids[0], { bib: '123' }, { kind: 'account', accountId: 3, apiKeyId: null }],
    ]);
  });

  it('refuses a bib that is not 1-6 letters or digits (400) and removing a bib the photo does not have (404)', async () => {
    const { photos, service, audit } = setup();
    photos.add({ id: ids[0], eventId: 5, publishedAt: published });
    for (const bad of ['', '1234567', '12-3', '<b>'])
      await expect(service.addBib(organiser(1), 1, 5, ids[0], bad)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    await expect(service.removeBib(organiser(1), 1, 5, ids[0], '77')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(audit.entries).toEqual([]);
  });

  it('hides a photo from participants at once and never publishes it meanwhile; unhide publishes it into a live event', async () => {
    const { events, photos, service, bumped } = setup();
    events.rows.get(5)!.wentLiveAt = published;
    photos.add({ id: ids[0], eventId: 5, publishedAt: published });
    const hidden = await service.hide(organiser(1), 1, 5, ids[0]);
    expect(hidden.hidden).toBe(true);
    expect(await photos.publishedAmong([ids[0]])).toEqual(new Set());
    expect(await photos.publishProcessed(5, new Date())).toBe(0);
    expect((await service.photo(organiser(1), 1, 5, ids[0])).hidden).toBe(true);
    await service.hide(organiser(1), 1, 5, ids[0]);
    expect(bumped).toEqual([5]);
    await service.unhide(organiser(1), 1, 5, ids[0]);
    expect(await photos.publishedAmong([ids[0]])).toEqual(new Set([ids[0]]));
    expect(bumped).toEqual([5, 5]);
    // Not live: unhidden, it waits for go-live like any processed photo.
    events.rows.get(5)!.wentLiveAt = null;
    await service.hide(organiser(1), 1, 5, ids[0]);
    await service.unhide(organiser(1), 1, 5, ids[0]);
    expect(await photos.publishedAmong([ids[0]])).toEqual(new Set());
    expect(await photos.publishProcessed(5, new Date())).toBe(1);
  });

  it('deletes the photo: its original and previews from storage, its row, bibs and faces', async () => {
    const { photos, store, service, audit } = setup();
    const photo = photos.add({
      id: ids[0],
      eventId: 5,
      publishedAt: published,
      bibs: ['9'],
      largeKey: 'public/5/large/x.jpg',
      thumbnailKey: 'public/5/thumb/x.jpg',
    });
    photos.addFace(ids[0], Buffer.alloc(512));
    for (const key of [photo.originalKey, photo.largeKey!, photo.thumbnailKey!])
      await store.put(key, Buffer.from('x'), 'image/jpeg');
    expect(await service.delete(organiser(1), 1, 5, ids[0])).toEqual({ id: ids[0] });
    expect(store.objects.size).toBe(0);
    expect(await photos.findInEvent(5, ids[0])).toBeNull();
    expect(await service.bibsOf([ids[0]])).toEqual([]);
    expect(await service.facesOf([ids[0]])).toEqual([]);
    expect(audit.entries.map((e) => e.action)).toEqual(['photo.delete']);
    await expect(service.delete(organiser(1), 1, 5, ids[0])).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists the review queue with its reasons, page by page, and refuses a forged cursor', async () => {
    const { photos, service } = setup();
    photos.add({ id: ids[0], eventId: 5, publishedAt: published });
    photos.add({ id: ids[1], eventId: 5, publishedAt: published, bibs: ['12'] });
    photos.add({ id: ids[2], eventId: 5, publishedAt: published });
    photos.bibs.push({
      id: '90',
      photoId: ids[2],
      eventId: 5,
      bib: '1234',
      readText: '23',
      confidence: 0.9,
      status: 'completed',
      source: 'completed',
    });
    photos.bibs.push({
      id: '91',
      photoId: ids[2],
      eventId: 5,
      bib: '777',
      confidence: 0.8,
      status: 'rejected',
      source: 'read',
    });
    const first = await service.queue(organiser(1), 1, 5, 1);
    expect(first.items.map((i) => [i.photo.id, i.reasons])).toEqual([[ids[0], ['no_bib']]]);
    expect(first.hasNextPage).toBe(true);
    const second = await service.queue(organiser(1), 1, 5, 1, first.endCursor);
    expect(second.items.map((i) => [i.photo.id, i.reasons])).toEqual([[ids[2], ['rejected_read', 'completed_read']]]);
    expect(second.hasNextPage).toBe(false);
    // The organiser's word settles a number: the completed read confirmed, the rejected one dismissed.
    await service.addBib(organiser(1), 1, 5, ids[2], '1234');
    await service.removeBib(organiser(1), 1, 5, ids[2], '777');
    expect((await service.queue(organiser(1), 1, 5)).items.map((i) => i.photo.id)).toEqual([ids[0]]);
    for (const bad of ['junk', Buffer.from(`photo:${'x'.repeat(36)}`).toString('base64url')]) {
      await expect(service.queue(organiser(1), 1, 5, 10, bad)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    }
    await expect(service.queue(organiser(1), 1, 5, 0)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    await expect(service.queue(organiser(1), 1, 5, 101)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  it('is for organisers only: never an API key (read-only or not), another organisation, a read-only token; nothing changes then', async () => {
    const { photos, service, audit, bumped } = setup();
    photos.add({ id: ids[0], eventId: 5, publishedAt: published, bibs: ['5'] });
    const refused: Principal[] = [
      apiKeyPrincipal(1),
      { ...apiKeyPrincipal(1), readOnly: true },
      organiser(2),
      { ...organiser(1), scopes: ['events:read'] },
    ];
    for (const caller of refused) {
      const calls = [
        service.photo(caller, 1, 5, ids[0]),
        service.queue(caller, 1, 5),
        service.addBib(caller, 1, 5, ids[0], '6'),
        service.removeBib(caller, 1, 5, ids[0], '5'),
        service.hide(caller, 1, 5, ids[0]),
        service.unhide(caller, 1, 5, ids[0]),
        service.delete(caller, 1, 5, ids[0]),
        service.guardPhotoFields(caller, 5),
      ];
      for (const call of calls) await expect(call).rejects.toMatchObject({ code: 'FORBIDDEN' });
    }
    // An organiser of another organisation naming its own organisation with this event: the event is not theirs.
    await expect(service.hide(organiser(2), 2, 5, ids[0])).rejects.toMatchObject({ code: 'FORBIDDEN' });
    // A photo of another event of the organisation is not found through this one.
    await expect(service.hide(organiser(1), 1, 5, ids[1])).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await photos.publishedAmong([ids[0]])).toEqual(new Set([ids[0]]));
    expect(audit.entries).toEqual([]);
    expect(bumped).toEqual([]);
  });

  it('a photo not processed yet can be deleted, not reviewed', async () => {
    const { photos, service } = setup();
    photos.add({ id: ids[0], eventId: 5, status: 'failed', largeKey: null, thumbnailKey: null });
    await expect(service.addBib(organiser(1), 1, 5, ids[0], '1')).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await service.delete(organiser(1), 1, 5, ids[0])).toEqual({ id: ids[0] });
  });
});
