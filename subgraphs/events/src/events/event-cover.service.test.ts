import { ContentVersions } from '@em/core';
import { InMemoryEventsRepository, InMemoryObjectStore } from '@em/core/testing';
import sharp from 'sharp';
import { callers } from '../test-principals';
import { COVER_MAX_BYTES, EventCoverService } from './event-cover.service';

function setup() {
  const events = new InMemoryEventsRepository();
  const store = new InMemoryObjectStore();
  const event = events.add({ orgId: 1 });
  return { events, store, event, service: new EventCoverService(events, store, new ContentVersions(events, null)) };
}

const image = (width: number, height: number, format: 'jpeg' | 'png' | 'gif' = 'png') =>
  sharp({ create: { width, height, channels: 3, background: '#3a6' } })
    .toFormat(format)
    .toBuffer();

describe('EventCoverService', () => {
  it('stores the cover as a JPEG at most 1600 px wide on the public host, and replaces the previous one', async () => {
    const { events, store, event, service } = setup();
    const view = await service.set(callers.admin(1), 1, event.id, await image(2400, 1200));
    const key = (await events.findById(event.id))!.coverImageKey!;
    expect(key).toMatch(new RegExp(`^public/${event.id}/cover/[0-9a-f-]+\\.jpg$`));
    expect(view).toMatchObject({ id: event.id });
    expect(JSON.stringify(view)).toContain(store.publicUrl(key));
    const stored = store.objects.get(key)!;
    expect(stored.contentType).toBe('image/jpeg');
    expect(await sharp(stored.body).metadata()).toMatchObject({ format: 'jpeg', width: 1600, height: 800 });
    await service.set(callers.admin(1), 1, event.id, await image(300, 200, 'jpeg'));
    const next = (await events.findById(event.id))!.coverImageKey!;
    expect(next).not.toBe(key);
    expect(store.deleted).toEqual([key]);
    expect(await sharp(store.objects.get(next)!.body).metadata()).toMatchObject({ width: 300, height: 200 });
    // Participants' cached answers name the cover: each change is a new content version.
    expect(events.contentVersions.get(event.id)).toBe(3);
  });

  it('refuses what is not a usable JPEG, PNG or WebP, and files over the limit, storing nothing', async () => {
    const { store, event, service } = setup();
    await expect(service.set(callers.admin(1), 1, event.id, Buffer.from('not an image'))).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
    });
    await expect(service.set(callers.admin(1), 1, event.id, await image(40, 40, 'gif'))).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
    });
    await expect(service.set(callers.admin(1), 1, event.id, Buffer.alloc(COVER_MAX_BYTES + 1))).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
    expect(store.objects.size).toBe(0);
  });

  it("refuses callers who may not change the event's settings", async () => {
    const { store, event, service } = setup();
    const cover = await image(100, 100);
    await expect(service.set(callers.admin(2), 1, event.id, cover)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(service.set(callers.readOnlyAdmin(1), 1, event.id, cover)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(service.set(callers.admin(1), 1, 999, cover)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(store.objects.size).toBe(0);
  });
});
