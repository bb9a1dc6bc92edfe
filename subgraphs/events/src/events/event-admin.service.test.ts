import { ContentVersions } from '@em/core';
import { InMemoryEventsRepository, InMemoryOrganisationsRepository } from '@em/core/testing';
import { callers } from '../test-principals';
import { EventAdminService } from './event-admin.service';
import { EventDeletionJobs, EventDeletionStatus } from './event-deletion';

function setup() {
  const events = new InMemoryEventsRepository();
  const organisations = new InMemoryOrganisationsRepository();
  const started: number[] = [];
  const statuses = new Map<number, EventDeletionStatus>();
  const deletions: EventDeletionJobs = {
    start: async (eventId, orgId) => {
      started.push(eventId);
      statuses.set(eventId, {
        eventId,
        orgId,
        state: 'queued',
        percent: 0,
        objectsDeleted: 0,
        objectsFound: 0,
        error: null,
      });
    },
    status: async (eventId) => statuses.get(eventId) ?? null,
  };
  const service = new EventAdminService(
    { events, organisations },
    deletions,
    { publicUrl: (k: string) => `https://media/${k}` },
    new ContentVersions(events, null),
  );
  return { events, organisations, service, started };
}

describe('EventAdminService', () => {
  it('creates an event with the chosen flags, threshold and zone, and a slug from its name', async () => {
    const { organisations, service } = setup();
    const org = await organisations.create({ name: 'Club', slug: 'club' });
    const event = await service.create(callers.admin(org.id), org.id, {
      name: 'City 10K',
      bibSearch: true,
      selfieSearch: true,
      confidenceThreshold: 70,
      timeZone: 'europe/paris',
    });
    expect(event).toMatchObject({
      orgId: org.id,
      name: 'City 10K',
      slug: 'city-10k',
      status: 'draft',
      bibSearch: true,
      selfieSearch: true,
      timelineSearch: false,
      confidenceThreshold: 70,
      timeZone: 'Europe/Paris',
    });
    expect((await service.create(callers.admin(org.id), org.id, { name: 'City 10K' })).slug).toBe('city-10k-2');
  });

  it('lets only admins of the organisation (or platform administrators) create events; keys and users get 403', async () => {
    const { organisations, service } = setup();
    const org = await organisations.create({ name: 'Club', slug: 'club' });
    for (const caller of [
      callers.key(org.id),
      callers.user(org.id),
      callers.admin(org.id + 1),
      callers.readOnlyAdmin(org.id),
    ]) {
      await expect(service.create(caller, org.id, { name: 'X' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    }
    await expect(service.create(callers.platform(), org.id, { name: 'X' })).resolves.toMatchObject({ name: 'X' });
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ name: 'a\nb' }, 'name'],
    [{ name: 'X', slug: 'Not A Slug' }, 'slug'],
    [{ name: 'X', confidenceThreshold: 101 }, 'confidence_threshold'],
    [{ name: 'X', confidenceThreshold: -1 }, 'confidence_threshold'],
    [{ name: 'X', confidenceThreshold: Number.NaN }, 'confidence_threshold'],
    [{ name: 'X', timeZone: 'Mars/Olympus' }, 'time_zone'],
    [{ name: 'X', timeZone: '+01:00' }, 'time_zone'],
    [{ name: 'X', eventDate: '2026-02-30' }, 'event_date'],
    [{ name: 'X', eventDate: 'tomorrow' }, 'event_date'],
    [{ name: 'X', status: 'live' }, 'status'],
    [{ name: 'X', watermarkText: 'w'.repeat(101) }, 'watermark_text'],
    [{ name: 'X', videoSelfieSearch: true }, 'video_selfie_search'],
    [{ name: 'X', videoSampleFps: 0 }, 'video_sample_fps'],
    [{ name: 'X', clipRetentionHours: 1.5 }, 'clip_retention_hours'],
    [{ name: 'X', clipMinSegmentSeconds: 20, clipMaxDurationSeconds: 10 }, 'clip_min_segment_seconds'],
  ])('refuses %p with BAD_USER_INPUT on %s', async (input, field) => {
    const { organisations, service } = setup();
    const org = await organisations.create({ name: 'Club', slug: 'club' });
    await expect(service.create(callers.admin(org.id), org.id, input)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field },
    });
  });

  it('updates settings (null clears the threshold; the flag change is stored at once) and refuses a slug another event has', async () => {
    const { organisations, service, events } = setup();
    const org = await organisations.create({ name: 'Club', slug: 'club' });
    const a = await service.create(callers.admin(org.id), org.id, {
      name: 'A',
      bibSearch: true,
      confidenceThreshold: 80,
    });
    await service.create(callers.admin(org.id), org.id, { name: 'B' });
    const updated = await service.update(callers.admin(org.id), org.id, a.id, {
      bibSearch: false,
      confidenceThreshold: null,
      status: 'active',
      name: null,
    });
    expect(updated).toMatchObject({ name: 'A', bibSearch: false, confidenceThreshold: null, status: 'active' });
    expect((await events.findById(a.id))!.bibSearch).toBe(false);
    // A setting is part of what participants read: the content version moved.
    expect(events.contentVersions.get(a.id)).toBe(2);
    await expect(service.update(callers.admin(org.id), org.id, a.id, { slug: 'b' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(events.contentVersions.get(a.id)).toBe(2);
  });

  it("refuses another organisation's event (403) and a missing one (404)", async () => {
    const { organisations, service } = setup();
    const mine = await organisations.create({ name: 'Mine', slug: 'mine' });
    const theirs = await organisations.create({ name: 'Theirs', slug: 'theirs' });
    const event = await service.create(callers.admin(theirs.id), theirs.id, { name: 'T' });
    await expect(service.update(callers.admin(mine.id), mine.id, event.id, { name: 'hijack' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(service.update(callers.admin(mine.id), theirs.id, event.id, { name: 'hijack' })).rejects.toMatchObject(
      { code: 'FORBIDDEN' },
    );
    await expect(service.update(callers.admin(mine.id), mine.id, 999, { name: 'x' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('archives', async () => {
    const { organisations, service } = setup();
    const org = await organisations.create({ name: 'Club', slug: 'club' });
    const event = await service.create(callers.admin(org.id), org.id, { name: 'A', status: 'active' });
    expect((await service.archive(callers.admin(org.id), org.id, event.id)).status).toBe('archived');
  });

  it('deletes only with confirm, hides the event at once, queues one job, and answers the status when asked again', async () => {
    const { organisations, service, events, started } = setup();
    const org = await organisations.create({ name: 'Club', slug: 'club' });
    const event = await service.create(callers.admin(org.id), org.id, { name: 'A' });
    await expect(service.delete(callers.admin(org.id), org.id, event.id, false)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'confirm' },
    });
    await expect(service.delete(callers.user(org.id), org.id, event.id, true)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(await service.delete(callers.admin(org.id), org.id, event.id, true)).toMatchObject({
      eventId: event.id,
      state: 'queued',
    });
    expect(await events.findById(event.id)).toBeNull();
    expect(await service.delete(callers.admin(org.id), org.id, event.id, true)).toMatchObject({ state: 'queued' });
    expect(await service.deletionStatus(callers.admin(org.id), org.id, event.id)).toMatchObject({ orgId: org.id });
    const other = await organisations.create({ name: 'Other', slug: 'other' });
    await expect(service.deletionStatus(callers.admin(other.id), other.id, event.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(service.delete(callers.admin(other.id), other.id, event.id, true)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(started).toEqual([event.id, event.id]);
  });
});
