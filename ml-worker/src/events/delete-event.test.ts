import { InMemoryEventsRepository } from '@em/core/testing';
import { EventDeleter } from './delete-event';

function setup(objects: string[]) {
  const events = new InMemoryEventsRepository();
  const keys = new Set(objects);
  const store = {
    list: async (prefix: string) =>
      [...keys]
        .filter((k) => k.startsWith(prefix))
        .sort()
        .map((key) => ({ key, size: 1 })),
    delete: async (key: string) => void keys.delete(key),
  };
  const logger = { info: () => undefined, warn: () => undefined };
  const add = (id: number, deleting: boolean) => events.add({ id, orgId: 1, deletingAt: deleting ? new Date() : null });
  // What the usage archive saw: the events whose usage was copied, and whether each row still existed then.
  const archived: Array<{ eventId: number; rowPresent: boolean }> = [];
  const usage = {
    archiveEvent: async (eventId: number) => void archived.push({ eventId, rowPresent: events.rows.has(eventId) }),
  };
  return { events, keys, add, archived, deleter: new EventDeleter(events, usage, store, logger as never) };
}

describe('EventDeleter', () => {
  const objectsOf = (id: number) => [
    `originals/${id}/a.jpg`,
    `public/${id}/large/a.jpg`,
    `public/${id}/thumb/a.jpg`,
    `public/${id}/cover/c.jpg`,
    `videos/${id}/v.mp4`,
    `public/${id}/clips/r/c.mp4`,
  ];

  it("deletes the event's objects under its prefixes only (event 1 is not event 12), then its row, with progress", async () => {
    const { events, keys, add, deleter } = setup([...objectsOf(1), ...objectsOf(12)]);
    add(1, true);
    add(12, false);
    const reports: unknown[] = [];
    expect(await deleter.run({ eventId: 1, orgId: 1 }, async (p) => void reports.push(p))).toEqual({
      objectsFound: 6,
      objectsDeleted: 6,
    });
    expect([...keys].sort()).toEqual(objectsOf(12).sort());
    expect([...events.rows.keys()]).toEqual([12]);
    expect(reports[0]).toEqual({ objectsFound: 6, objectsDeleted: 0 });
    expect(reports.at(-1)).toEqual({ objectsFound: 6, objectsDeleted: 6 });
  });

  it("keeps the event's usage: copied while its rows still exist, never for an event not marked deleted", async () => {
    const { add, archived, deleter } = setup([]);
    add(5, true);
    add(6, false);
    await deleter.run({ eventId: 5, orgId: 1 }, async () => undefined);
    await deleter.run({ eventId: 6, orgId: 1 }, async () => undefined);
    expect(archived).toEqual([{ eventId: 5, rowPresent: true }]);
  });

  it('never touches an event that is not marked deleted', async () => {
    const { keys, add, deleter } = setup(objectsOf(3));
    add(3, false);
    expect(await deleter.run({ eventId: 3, orgId: 1 }, async () => undefined)).toBe('skipped');
    expect(keys.size).toBe(6);
  });

  it('is idempotent: a retry after the row went sweeps what is left and succeeds', async () => {
    const { keys, deleter } = setup([`public/4/large/left.jpg`]);
    expect(await deleter.run({ eventId: 4, orgId: 1 }, async () => undefined)).toEqual({
      objectsFound: 1,
      objectsDeleted: 1,
    });
    expect(keys.size).toBe(0);
    expect(await deleter.run({ eventId: 4, orgId: 1 }, async () => undefined)).toEqual({
      objectsFound: 0,
      objectsDeleted: 0,
    });
  });
});
