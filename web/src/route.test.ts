import { readEventPath, readKey, readView, viewSearch } from './route';

describe('the page address', () => {
  it('names the event by its path only', () => {
    expect(readEventPath('/events/12/345')).toEqual({ orgId: 12, eventId: 345 });
    expect(readEventPath('/events/12/345/')).toEqual({ orgId: 12, eventId: 345 });
    for (const bad of ['/events/12', '/events/a/1', '/events/1/2/3', '/x/events/1/2', '/events/1/2?x'])
      expect(readEventPath(bad)).toBeNull();
  });

  it('keeps what is shown in the query: a BIB, a selfie request_id, a day and hour; anything else is all photos', () => {
    expect(readView('?bib=1207')).toEqual({ kind: 'bib', bib: '1207' });
    const id = '0b1f6a52-54a5-4c59-a7e4-2c3a8f1c6b10';
    expect(readView(`?selfie=${id}`)).toEqual({ kind: 'selfie', requestId: id });
    expect(readView('?selfie=not-a-uuid')).toEqual({ kind: 'all' });
    expect(readView('?day=2026-05-17&hour=9')).toEqual({ kind: 'time', day: '2026-05-17', hour: 9 });
    expect(readView('?day=2026-05-17&hour=24')).toEqual({ kind: 'time', day: '2026-05-17', hour: null });
    expect(readView('?day=17-05-2026')).toEqual({ kind: 'all' });
    for (const view of [
      readView('?bib=A 12'),
      readView(`?selfie=${id}`),
      readView('?day=2026-05-17&hour=0'),
      readView(''),
    ]) {
      expect(readView(viewSearch(view))).toEqual(view);
    }
  });

  it('reads the browser key from the fragment and keeps it for the tab; without one, from the tab', () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
    } as unknown as Storage;
    expect(readKey('#key=em_abc', storage, '1/2')).toBe('em_abc');
    expect(readKey('', storage, '1/2')).toBe('em_abc');
    expect(readKey('', storage, '1/3')).toBeNull();
    expect(readKey('#key=em_new', null, '1/2')).toBe('em_new');
  });
});
