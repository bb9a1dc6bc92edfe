import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { api, closeDb, expectError, expectSuccess, fixtures, gql, info, runCli, sql } from './support/platform';

const IMPORT = `mutation($o: Int!, $e: Int!, $f: Upload!, $m: StartListImportMode!, $s: Boolean) {
  importStartList(orgId: $o, eventId: $e, file: $f, mode: $m, skipInvalid: $s) { imported total skipped { line reason } } }`;
const EXPORT = 'query($o: Int!, $e: Int!) { exportStartList(orgId: $o, eventId: $e) { csv count } }';
const SEARCH =
  'query($o: Int!, $e: Int!, $q: String!) { searchByName(orgId: $o, eventId: $e, query: $q) { bib name photoCount } }';

/** The GraphQL multipart upload of a start list file, as an organiser's tool sends it. */
async function importCsv(
  key: string,
  orgId: number,
  eventId: number,
  csv: string | Buffer,
  mode: 'APPEND' | 'REPLACE',
  skipInvalid?: boolean,
) {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({ query: IMPORT, variables: { o: orgId, e: eventId, f: null, m: mode, s: skipInvalid ?? null } }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.f'] }));
  form.append(
    '0',
    new Blob([typeof csv === 'string' ? csv : new Uint8Array(csv)], { type: 'text/csv' }),
    'start-list.csv',
  );
  const res = await fetch(info.gatewayUrl, {
    method: 'POST',
    headers: { 'x-api-key': key, 'apollo-require-preflight': 'true' },
    body: form,
  });
  const body = (await res.json()) as { data?: any; errors?: Array<{ message: string; extensions: any }> };
  return { result: body.data?.importStartList, error: body.errors?.[0], code: body.errors?.[0]?.extensions?.code };
}

const START_LIST =
  '\uFEFFbib;first_name;last_name;category;team\r\n1207;Zoé;Dupont;F40;"Club ""Rapide""; Lyon"\r\n88;Jean-Pierre;Dupuis;M50;\r\n301;Łukasz;Wójcik;M30;\r\n';

describe('start lists', () => {
  let orgId: number;
  let key: string;
  let eventId: number;
  let browserKey: string;
  let foreignKey: string;

  beforeAll(async () => {
    ({ orgId, key } = await fixtures.organisation('Start List Club'));
    eventId = await fixtures.event(orgId, { nameSearch: true });
    browserKey = await fixtures.apiKey(orgId, { readOnly: true });
    foreignKey = (await fixtures.organisation('Someone Else')).key;
  });
  afterAll(closeDb);

  it('imports a semicolon file with a BOM, quotes and accents, and exports it back', async () => {
    expect(await importCsv(key, orgId, eventId, START_LIST, 'REPLACE')).toMatchObject({
      result: { imported: 3, total: 3, skipped: [] },
    });
    const exported = (await gql(EXPORT, { o: orgId, e: eventId }, key)).body.data.exportStartList;
    expect(exported.count).toBe(3);
    expect(exported.csv).toBe(
      'bib,first_name,last_name,name,category,team\n1207,Zoé,Dupont,Zoé Dupont,F40,"Club ""Rapide""; Lyon"\n88,Jean-Pierre,Dupuis,Jean-Pierre Dupuis,M50,\n301,Łukasz,Wójcik,Łukasz Wójcik,M30,\n',
    );
  });

  it('a bad file is refused with every bad line and stores nothing; skipInvalid stores the valid lines', async () => {
    const bad = 'bib,name\n5,Ann\n5,Ann Twice\n,No Bib\n1234567,Too Long\n6,"unclosed\n';
    const refused = await importCsv(key, orgId, eventId, bad, 'REPLACE');
    expect(refused.code).toBe('BAD_USER_INPUT');
    expect(refused.error!.message).toMatch(/^4 lines of the start list are invalid; nothing was stored/);
    expect(refused.error!.extensions.lines).toEqual([
      { line: 3, reason: 'duplicate bib 5 (also on line 2)' },
      { line: 4, reason: 'empty bib' },
      { line: 5, reason: 'bib "1234567" is not 1 to 6 letters or digits' },
      { line: 6, reason: 'a quoted field is not closed' },
    ]);
    expect((await gql(EXPORT, { o: orgId, e: eventId }, key)).body.data.exportStartList.count).toBe(3);
    for (const file of ['', 'number,name\n1,A\n', Buffer.from([0x62, 0x69, 0x62, 0x0a, 0xff, 0xfe]), 'bib,name\n']) {
      expect((await importCsv(key, orgId, eventId, file, 'REPLACE')).code).toBe('BAD_USER_INPUT');
    }
    const other = await fixtures.event(orgId);
    expect(await importCsv(key, orgId, other, bad, 'REPLACE', true)).toMatchObject({
      result: { imported: 1, total: 1, skipped: [{ line: 3 }, { line: 4 }, { line: 5 }, { line: 6 }] },
    });
  });

  it('append adds lines; a bib already listed is a bad line', async () => {
    const append = await importCsv(key, orgId, eventId, 'bib,name\n1207,Zoé Again\n', 'APPEND');
    expect(append.error!.extensions.lines).toEqual([
      { line: 2, reason: 'bib 1207 is already on the start list (replace the list to change it)' },
    ]);
    expect(await importCsv(key, orgId, eventId, 'name,bib\nAnna Martin,A12\n', 'APPEND')).toMatchObject({
      result: { imported: 1, total: 4 },
    });
  });

  it('a read-only (browser) key and a foreign key may neither import nor export; an unknown event is 404', async () => {
    for (const caller of [browserKey, foreignKey]) {
      expect((await importCsv(caller, orgId, eventId, START_LIST, 'REPLACE')).code).toBe('FORBIDDEN');
      expect((await gql(EXPORT, { o: orgId, e: eventId }, caller)).body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    }
    expect((await importCsv(key, orgId, 999_999, START_LIST, 'REPLACE')).code).toBe('NOT_FOUND');
    expect((await gql(EXPORT, { o: orgId, e: eventId }, key)).body.data.exportStartList.count).toBe(4);
  });

  it('the CLI imports (append, --replace, --skip-invalid), lists bad lines with exit code 1, and exports', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'start-list-'));
    const good = path.join(dir, 'good.csv');
    const bad = path.join(dir, 'bad.csv');
    writeFileSync(good, 'bib,first_name,last_name\n7,Émile,Zola\n8,Marie,Curie\n');
    writeFileSync(bad, 'bib,first_name,last_name\n9,Ok,Fine\n9,Dup,Licate\n');
    const cliEvent = await fixtures.event(orgId);
    expect(await runCli('import-start-list', '--event', String(cliEvent), '--file', good)).toMatch(
      /^2 participants imported \(append\); the start list has 2/,
    );
    const failure = await runCli('import-start-list', '--event', String(cliEvent), '--file', bad, '--replace').catch(
      (e: Error) => e.message,
    );
    expect(failure).toMatch(/line 3: duplicate bib 9 \(also on line 2\)/);
    expect(failure).toMatch(/error: 1 line of the start list is invalid; nothing was stored/);
    expect(
      await runCli('import-start-list', '--event', String(cliEvent), '--file', bad, '--replace', '--skip-invalid'),
    ).toMatch(/1 participants imported \(replace\); the start list has 1; 1 invalid lines skipped/);
    const out = path.join(dir, 'out.csv');
    await runCli('export-start-list', '--event', String(cliEvent), '--out', out);
    expect(readFileSync(out, 'utf8')).toBe('bib,first_name,last_name,name,category,team\n9,Ok,Fine,Ok Fine,,\n');
    expect(await runCli('export-start-list', '--event', String(cliEvent))).toContain('9,Ok,Fine,Ok Fine,,');
    rmSync(dir, { recursive: true, force: true });
  }, 300_000); // six CLI processes, each starting Node and the ORM

  it('imports 100,000 lines in seconds', async () => {
    const lines = Array.from(
      { length: 100_000 },
      (_, i) => `${i + 1},Prénom${i},Nom${i % 997},M${i % 7},Team ${i % 50}`,
    );
    const big = await fixtures.event(orgId, { nameSearch: true });
    const started = Date.now();
    const done = await importCsv(
      key,
      orgId,
      big,
      `bib,first_name,last_name,category,team\n${lines.join('\n')}\n`,
      'REPLACE',
    );
    const seconds = (Date.now() - started) / 1000;
    expect(done.result).toMatchObject({ imported: 100_000, total: 100_000 });
    // Speed is the bench's to measure (this machine is shared); the figure is logged for a look.
    console.log(`start list: 100,000 lines imported in ${seconds.toFixed(1)} s`);
    const hits = (await gql(SEARCH, { o: orgId, e: big, q: 'prenom4242 nom254' }, key)).body.data.searchByName;
    expect(hits[0]).toMatchObject({ bib: '4243' });
  }, 120_000);
});

describe('name search', () => {
  let orgId: number;
  let key: string;
  let eventId: number;
  let browserKey: string;

  beforeAll(async () => {
    ({ orgId, key } = await fixtures.organisation('Name Search Club'));
    eventId = await fixtures.event(orgId, { nameSearch: true });
    browserKey = await fixtures.apiKey(orgId, { readOnly: true });
    const participants = [
      '1207;Zoé;Dupont',
      '88;Jean-Pierre;Dupuis',
      '301;Łukasz;Wójcik',
      '12;Anna;Müller',
      '13;Hanna;Mueller',
    ];
    expect(
      (await importCsv(key, orgId, eventId, `bib;first_name;last_name\n${participants.join('\n')}\n`, 'REPLACE')).result
        .imported,
    ).toBe(5);
    await fixtures.photos(eventId, [
      { capturedAt: new Date(1000), bibs: ['1207'] },
      { capturedAt: new Date(2000), bibs: ['1207', '88'] },
      { capturedAt: new Date(3000), bibs: ['1207'], published: false },
    ]);
  });
  afterAll(closeDb);

  const search = async (q: string, credential = browserKey, event = eventId) =>
    gql(SEARCH, { o: orgId, e: event, q }, credential);
  const bibsOf = async (q: string) =>
    ((await search(q)).body.data.searchByName as Array<{ bib: string }>).map((m) => m.bib);

  it('matches accents and case aside, word prefixes, and a typo; with published photo counts', async () => {
    expect((await search('zoe DUPONT')).body.data.searchByName).toEqual([
      { bib: '1207', name: 'Zoé Dupont', photoCount: 2 },
    ]);
    expect(await bibsOf('dup')).toEqual(expect.arrayContaining(['1207', '88']));
    expect(await bibsOf('jean pierre')).toEqual(['88']);
    expect(await bibsOf('lukasz wojcik')).toEqual(['301']);
    expect(await bibsOf('dupond')).toContain('1207');
    expect(await bibsOf('muller')).toContain('12');
    expect(await bibsOf('xyzzy')).toEqual([]);
    expect((await search('88')).body.data.searchByName).toEqual([]);
  });

  it('refuses a one-letter query; FORBIDDEN when name_search is off; a foreign key is refused', async () => {
    expect((await search('z')).body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    const off = await fixtures.event(orgId);
    expect((await search('zoe', browserKey, off)).body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const foreign = (await fixtures.organisation('Far Away')).key;
    expect((await search('zoe', foreign)).body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });

  it("the participant page's route answers in the envelope, outside the spec's API; the spec's API has no such route", async () => {
    const res = await fetch(
      `${info.restUrl}/events/api/${orgId}/event/${eventId}/names?q=${encodeURIComponent('Zoé')}`,
      { headers: { 'x-api-key': key } },
    );
    expect(await res.json()).toEqual({
      responseType: 'success',
      message: 'Name search: ok',
      data: { participants: [{ bib: '1207', name: 'Zoé Dupont', photo_count: 2 }] },
    });
    const missing = await fetch(`${info.restUrl}/events/api/${orgId}/event/${eventId}/names`, {
      headers: { 'x-api-key': key },
    });
    expect(missing.status).toBe(400);
    const off = await fixtures.event(orgId);
    expectError(await api(`/${orgId}/event/${off}/names?q=zoe`, { key }), 404);
    const forbidden = await fetch(`${info.restUrl}/events/api/${orgId}/event/${off}/names?q=zoe`, {
      headers: { 'x-api-key': key },
    });
    expect(forbidden.status).toBe(403);
    expect((await fetch(`${info.restUrl}/events/api/${orgId}/event/${eventId}/names?q=zoe`)).status).toBe(401);
    expectSuccess(await api(`/${orgId}/event/${eventId}/details`, { key }));
  });

  it('answers at most 20 participants', async () => {
    const many = await fixtures.event(orgId, { nameSearch: true });
    const lines = Array.from({ length: 60 }, (_, i) => `${i + 1},Martin Number${i}`);
    await importCsv(key, orgId, many, `bib,name\n${lines.join('\n')}\n`, 'REPLACE');
    expect((await search('martin', browserKey, many)).body.data.searchByName).toHaveLength(20);
  });

  it('a start list re-judges stored reads at once: a number not on it stops finding photos, until it is listed', async () => {
    const judged = await fixtures.event(orgId, { nameSearch: true });
    await fixtures.photos(judged, [{ capturedAt: new Date(1000), bibs: ['1207', '555'] }]);
    const bibTotal = async (bib: string) =>
      expectSuccess(await api(`/${orgId}/event/${judged}/bibs/${bib}`, { key })).pagination.total;
    expect([await bibTotal('1207'), await bibTotal('555')]).toEqual([1, 1]);
    await importCsv(key, orgId, judged, 'bib,name\n1207,Zoé Dupont\n', 'REPLACE');
    expect([await bibTotal('1207'), await bibTotal('555')]).toEqual([1, 0]);
    const rows = await sql(
      'select bib, coalesce(read_text, bib) as read_text, status, source from photo_bibs where event_id = $1 order by bib',
      [judged],
    );
    expect(rows).toEqual([
      { bib: '1207', read_text: '1207', status: 'accepted', source: 'read' },
      { bib: '555', read_text: '555', status: 'rejected', source: 'read' },
    ]);
    await importCsv(key, orgId, judged, 'bib,name\n555,Max Five\n', 'APPEND');
    expect(await bibTotal('555')).toBe(1);
  });

  it('the count of start list rows matches what was imported', async () => {
    expect((await sql('select count(*)::int as n from start_list_entries where event_id = $1', [eventId]))[0].n).toBe(
      5,
    );
  });
});
