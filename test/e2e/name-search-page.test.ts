import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { ensureChromium, expectText, firstThumbnailShown, seriousA11yViolations } from './support/browser';
import { api, bumpContentVersion, closeDb, expectSuccess, info, runCli, sql } from './support/platform';

/**
 * The participant page's "Name" search in Debian's chromium at 360 px, on the demo event with a
 * start list naming every bib it has photos of: a name leads to that bib's photos.
 */
const OUT = path.join(__dirname, '..', 'output', 'participant-page');
const { orgId, eventId, browserKey } = info.demo;
const pageOrigin = info.restUrl.replace('127.0.0.1', 'localhost');
const pageUrl = (search = '') =>
  `${pageOrigin}/events/${orgId}/${eventId}${search}#key=${encodeURIComponent(browserKey)}`;

let browser: Browser;
let page: Page;
let bib: string;
let nameSearchBefore: boolean;
let startListBefore: Array<{ bib: string; name: string; category: string | null; team: string | null }>;

beforeAll(async () => {
  // Every bib the demo's photos show is listed, so the start list takes no photo away from the other suites.
  const bibs = (
    await sql(
      "select distinct bib from photo_bibs where event_id = $1 and status in ('accepted', 'completed') order by bib",
      [eventId],
    )
  ).map((r) => r.bib as string);
  bib = bibs[0];
  const dir = mkdtempSync(path.join(tmpdir(), 'demo-start-list-'));
  const file = path.join(dir, 'start-list.csv');
  const names = bibs.map((b, i) => (i === 0 ? `${b},Zoé,Dupont-Lefèvre` : `${b},Runner,Number ${b}`));
  writeFileSync(file, `bib,first_name,last_name\n${names.join('\n')}\n`);
  nameSearchBefore = (await sql('select name_search from events where id = $1', [eventId]))[0].name_search as boolean;
  startListBefore = await sql(
    'select bib, name, category, team from start_list_entries where event_id = $1 order by position',
    [eventId],
  );
  await runCli('import-start-list', '--event', String(eventId), '--file', file, '--replace');
  rmSync(dir, { recursive: true, force: true });
  await sql('update events set name_search = true where id = $1', [eventId]);
  mkdirSync(OUT, { recursive: true });
  browser = await chromium.launch({ executablePath: ensureChromium(), args: ['--no-sandbox'] });
  page = await (
    await browser.newContext({ viewport: { width: 360, height: 780 }, isMobile: true, hasTouch: true })
  ).newPage();
}, 600_000);

afterAll(async () => {
  // The demo event is shared by every suite: it leaves as it came (the seeded demo offers name search, with its list).
  await sql('update events set name_search = $2 where id = $1', [eventId, nameSearchBefore]);
  await sql('delete from start_list_entries where event_id = $1', [eventId]);
  if (startListBefore?.length) {
    // The seeded demo's own list (its drawn runners) comes back, through the CLI as it was imported.
    const dir = mkdtempSync(path.join(tmpdir(), 'demo-start-list-'));
    const file = path.join(dir, 'start-list.csv');
    const cell = (v: string | null) => `"${(v ?? '').replace(/"/g, '""')}"`;
    const lines = startListBefore.map((e) => [e.bib, e.name, e.category, e.team].map(cell).join(','));
    writeFileSync(file, `bib,name,category,team\n${lines.join('\n')}\n`);
    await runCli('import-start-list', '--event', String(eventId), '--file', file, '--replace');
    rmSync(dir, { recursive: true, force: true });
  }
  await bumpContentVersion(eventId);
  await browser?.close();
  await closeDb();
});

describe('the participant page: search by name', () => {
  it("the seeded demo's start list names the runners of its drawn photos", () => {
    expect(startListBefore).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ bib: '1207', name: 'Alex Martin', team: 'Demo Running Club' }),
        expect.objectContaining({ bib: '2315', name: 'Sam Rivera' }),
      ]),
    );
  });

  it('a name without accents finds the participant; choosing them shows their bib photos', async () => {
    const total = expectSuccess(await api(`/${orgId}/event/${eventId}/bibs/${bib}`)).pagination.total;
    expect(total).toBeGreaterThan(0);
    await page.goto(pageUrl());
    await firstThumbnailShown(page);
    await page.getByLabel('Name', { exact: true }).fill('zoe dupont lef');
    await page.getByRole('search', { name: 'Search by name' }).getByRole('button', { name: 'Find' }).click();
    const match = page.locator('.name-match');
    await expectText(
      match.first(),
      new RegExp(`Zoé Dupont-Lefèvre\\s*BIB ${bib} · ${total === 1 ? '1 photo' : `${total} photos`}`),
    );
    expect(await match.count()).toBe(1);
    await page.waitForLoadState('networkidle');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(OUT, 'name-search-matches.png'), fullPage: true });
    await match.first().click();
    await page.waitForURL(new RegExp(`\\?bib=${bib}`));
    await expectText(page.locator('.results .count'), total === 1 ? '1 photo' : `${total} photos`);
    await page.screenshot({ path: path.join(OUT, 'name-search-bib-photos.png'), fullPage: true });
  });

  it('says so when nobody matches, and asks for 2 letters', async () => {
    await page.goto(pageUrl());
    const form = page.getByRole('search', { name: 'Search by name' });
    await page.getByLabel('Name', { exact: true }).fill('qqqqzz');
    await form.getByRole('button', { name: 'Find' }).click();
    await expectText(form.getByRole('status'), 'Nobody of that name is on the start list.');
    await page.getByLabel('Name', { exact: true }).fill('z');
    await form.getByRole('button', { name: 'Find' }).click();
    await expectText(form.getByRole('alert'), 'Please type at least 2 letters of your name.');
  });

  it('is not offered when name_search is off', async () => {
    // A setting changed behind the API's back: bump the version as the API does, or the cached details stand.
    await sql('update events set name_search = false where id = $1', [eventId]);
    await bumpContentVersion(eventId);
    try {
      await page.goto('about:blank');
      await page.goto(pageUrl());
      await firstThumbnailShown(page);
      expect(await page.getByRole('search', { name: 'Search by name' }).count()).toBe(0);
    } finally {
      // The demo event is shared by every suite: its flag comes back whatever happened above.
      await sql('update events set name_search = true where id = $1', [eventId]);
      await bumpContentVersion(eventId);
    }
  });
});
