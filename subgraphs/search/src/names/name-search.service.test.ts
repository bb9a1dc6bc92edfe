import { apiKeyPrincipal, InMemoryEventsRepository, InMemoryStartListRepository } from '@em/core/testing';
import { NAME_SEARCH_MAX_RESULTS, NameSearchService } from './name-search.service';

function setup() {
  const events = new InMemoryEventsRepository();
  events.add({ id: 5, orgId: 1, nameSearch: true });
  events.add({ id: 6, orgId: 1, nameSearch: false });
  const startLists = new InMemoryStartListRepository();
  const entry = (bib: string, name: string) => ({
    bib,
    name,
    firstName: null,
    lastName: null,
    category: null,
    team: null,
  });
  startLists.lists.set(5, [
    entry('1207', 'Zoé Dupont'),
    entry('88', 'Jean Dupuis'),
    ...Array.from({ length: 40 }, (_, i) => entry(`${i + 300}`, `Anna Martin ${i}`)),
  ]);
  startLists.photoCounts.set('5/1207', 3);
  return { service: new NameSearchService(events, startLists) };
}

describe('NameSearchService', () => {
  it('finds participants by word prefixes, accents and case aside, with their photo counts', async () => {
    const { service } = setup();
    expect(await service.search(apiKeyPrincipal(1), 1, 5, 'zoe DUP')).toEqual([
      { bib: '1207', name: 'Zoé Dupont', photoCount: 3 },
    ]);
    expect((await service.search(apiKeyPrincipal(1), 1, 5, 'dup')).map((m) => m.bib)).toEqual(['1207', '88']);
  });

  it('caps the answer', async () => {
    const { service } = setup();
    expect(await service.search(apiKeyPrincipal(1), 1, 5, 'anna')).toHaveLength(NAME_SEARCH_MAX_RESULTS);
  });

  it('refuses a query of fewer than 2 letters or too long, an event without name search, another organisation', async () => {
    const { service } = setup();
    await expect(service.search(apiKeyPrincipal(1), 1, 5, ' a- ')).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    await expect(service.search(apiKeyPrincipal(1), 1, 5, 'a'.repeat(101))).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
    });
    await expect(service.search(apiKeyPrincipal(1), 1, 6, 'zoe')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(service.search(apiKeyPrincipal(2), 1, 5, 'zoe')).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('a read-only (browser) key may search', async () => {
    const { service } = setup();
    expect(await service.search({ ...apiKeyPrincipal(1), readOnly: true }, 1, 5, 'zoé')).toHaveLength(1);
  });
});
