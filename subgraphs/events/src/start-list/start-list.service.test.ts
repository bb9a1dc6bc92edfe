import { InMemoryEventsRepository, InMemoryStartListRepository } from '@em/core/testing';
import { callers } from '../test-principals';
import { StartListService } from './start-list.service';

function setup() {
  const events = new InMemoryEventsRepository();
  events.add({ id: 5, orgId: 7 });
  const startLists = new InMemoryStartListRepository();
  const changed: number[] = [];
  const service = new StartListService(events, startLists, async (eventId) => void changed.push(eventId));
  return { service, startLists, changed };
}
const file = (text: string) => async () => Buffer.from(text);

describe('StartListService', () => {
  it('keeps a start list within its most participants: an append past it stores nothing', async () => {
    const events = new InMemoryEventsRepository();
    events.add({ id: 5, orgId: 7 });
    const service = new StartListService(events, new InMemoryStartListRepository(), undefined, { maxParticipants: 3 });
    await service.import(callers.key(7), 7, 5, file('bib,name\n1,Ann\n2,Bob\n'), 'append', false);
    await expect(
      service.import(callers.key(7), 7, 5, file('bib,name\n3,Cléo\n4,Dan\n'), 'append', true),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT', message: expect.stringMatching(/at most 3 participants/) });
    expect(await service.size(callers.key(7), 7, 5)).toBe(2);
    // Up to the most, and a replace starts again from the file alone.
    expect(await service.import(callers.key(7), 7, 5, file('bib,name\n3,Cléo\n'), 'append', false)).toMatchObject({
      total: 3,
    });
    expect(
      await service.import(callers.key(7), 7, 5, file('bib,name\n7,Eve\n8,Fay\n'), 'replace', false),
    ).toMatchObject({
      total: 2,
    });
  });

  it('replaces and appends, then exports what it holds; each change is announced', async () => {
    const { service, changed } = setup();
    expect(await service.import(callers.key(7), 7, 5, file('bib,name\n1,Ann\n2,Bob\n'), 'replace', false)).toEqual({
      imported: 2,
      total: 2,
      skipped: [],
    });
    expect(await service.import(callers.admin(7), 7, 5, file('bib,name\n3,Cléo\n'), 'append', false)).toMatchObject({
      imported: 1,
      total: 3,
    });
    expect((await service.export(callers.key(7), 7, 5)).csv).toBe(
      'bib,first_name,last_name,name,category,team\n1,,,Ann,,\n2,,,Bob,,\n3,,,Cléo,,\n',
    );
    expect(await service.import(callers.key(7), 7, 5, file('bib,name\n9,Zed\n'), 'replace', false)).toMatchObject({
      imported: 1,
      total: 1,
    });
    expect(changed).toEqual([5, 5, 5]);
    expect(await service.size(callers.admin(7), 7, 5)).toBe(1);
  });

  it('an event without a start list has size 0', async () => {
    const { service } = setup();
    expect(await service.size(callers.key(7), 7, 5)).toBe(0);
  });

  it('stores nothing when a line is invalid, unless told to skip invalid lines', async () => {
    const { service, startLists, changed } = setup();
    const bad = 'bib,name\n1,Ann\n1,Dup\n,Empty\n';
    const refused = await service.import(callers.key(7), 7, 5, file(bad), 'replace', false).catch((e) => e);
    expect(refused).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: {
        invalidLines: 2,
        lines: [
          { line: 3, reason: 'duplicate bib 1 (also on line 2)' },
          { line: 4, reason: 'empty bib' },
        ],
      },
    });
    expect(refused.message).toMatch(/^2 lines of the start list are invalid; nothing was stored/);
    expect(await startLists.count(5)).toBe(0);
    expect(changed).toEqual([]);
    const skipped = await service.import(callers.key(7), 7, 5, file(bad), 'replace', true);
    expect(skipped).toMatchObject({ imported: 1, total: 1, skipped: [{ line: 3 }, { line: 4 }] });
  });

  it('on append, a bib already listed is an invalid line', async () => {
    const { service } = setup();
    await service.import(callers.key(7), 7, 5, file('bib,name\n1,Ann\n'), 'replace', false);
    await expect(
      service.import(callers.key(7), 7, 5, file('bib,name\n2,Bo\n1,Ann\n'), 'append', false),
    ).rejects.toMatchObject({
      details: { lines: [{ line: 3, reason: 'bib 1 is already on the start list (replace the list to change it)' }] },
    });
    expect(await service.import(callers.key(7), 7, 5, file('bib,name\n2,Bo\n1,Ann\n'), 'append', true)).toMatchObject({
      imported: 1,
      total: 2,
    });
  });

  it('a header problem or a file without lines fails even when skipping invalid lines', async () => {
    const { service } = setup();
    await expect(
      service.import(callers.key(7), 7, 5, file('number,name\n1,A\n'), 'replace', true),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    await expect(service.import(callers.key(7), 7, 5, file('bib,name\n'), 'replace', true)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
    });
  });

  it('needs write access to the event: never a read-only key, another organisation or a read-only token; the file is not read then', async () => {
    const { service } = setup();
    let read = 0;
    const counted = async () => (read++, Buffer.from('bib,name\n1,A\n'));
    const readOnlyKey = { ...callers.key(7), readOnly: true };
    for (const caller of [readOnlyKey, callers.key(8), callers.readOnlyAdmin(7)]) {
      await expect(service.import(caller, 7, 5, counted, 'replace', false)).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
      await expect(service.export(caller, 7, 5)).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(service.size(caller, 7, 5)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    }
    expect(read).toBe(0);
  });
});
