import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '@em/core';
import { ObjectStore } from '@em/core/storage';
import { Browser, BrowserContext, Page, Response } from 'playwright-core';
import sharp from 'sharp';
import { expectCount, expectText, seriousA11yViolations, settle } from './support/browser';
import { DashboardPlatformInfo, DashboardRig, openDashboard } from './support/dashboard';

// Browser globals of the functions evaluated in the page (the test program has no DOM types).
declare const document: any, localStorage: any, sessionStorage: any;

/**
 * The organisation dashboard in Debian's chromium, against a platform of its own that has no identity
 * provider configured, so `npm start`'s embedded OpenID provider runs: the demo organiser signs in
 * with the password the seed gave them, creates an event, a token and uploads a photo, then signs out.
 */
const OUT = path.join(__dirname, '..', 'output', 'dashboard');
const DOCS_IMAGES = path.join(__dirname, '..', '..', 'docs', 'images');
const REPO_ROOT = path.resolve(__dirname, '../..');
const SAMPLE_PHOTO = path.join(
  path.dirname(require.resolve('@vladmandic/face-api/package.json')),
  'demo',
  'sample1.jpg',
);
const MAX_FAILURES = 3;

let rig: DashboardRig;
let info: DashboardPlatformInfo;
let dashboardUrl: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;

function cli(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [path.join(REPO_ROOT, 'scripts/cli/dist/cli.js'), ...args],
      { env: { ...process.env, ...info.env } },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stdout}\n${stderr}`)) : resolve(stdout)),
    ),
  );
}

async function screenshot(name: string, p: Page = page) {
  await p.waitForLoadState('networkidle');
  expect(await seriousA11yViolations(p)).toEqual([]);
  await p.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });
}

/** The provider's sign-in form, filled and sent; the answer's status. */
async function submitSignIn(p: Page, email: string, password: string): Promise<number> {
  await p.locator('#email').fill(email);
  await p.locator('#password').fill(password);
  const [response] = await Promise.all([
    p.waitForResponse((r) => r.request().method() === 'POST' && /\/interaction\//.test(r.url())),
    p.locator('button[type=submit]').click(),
  ]);
  return response.status();
}

const tokensInStorage = (p: Page) =>
  p.evaluate(() => {
    const values: string[] = [];
    for (const store of [localStorage, sessionStorage])
      for (let i = 0; i < store.length; i++) values.push(store.getItem(store.key(i)) ?? '');
    return { values, readableCookies: document.cookie as string };
  });

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  rig = await openDashboard({ prefix: 'em-dashboard-', env: { SIGN_IN_MAX_FAILURES: String(MAX_FAILURES) } });
  ({ info, dashboardUrl, browser, context, page } = rig);
}, 900_000);

afterAll(async () => {
  await rig?.stop();
});

describe('the organisation dashboard with the embedded OpenID provider', () => {
  it('signs the demo organiser in (a wrong password is refused) and keeps every token away from page script', async () => {
    await page.goto(dashboardUrl);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/interaction\//);
    expect(new URL(page.url()).port).toBe(info.env.IDENTITY_PORT);
    await screenshot('1-sign-in');

    expect(await submitSignIn(page, 'organiser@demo.example', 'not-the-password')).toBe(401);
    await expectText(page.locator('.error'), 'Wrong e-mail or password.');

    await submitSignIn(page, 'organiser@demo.example', info.demo.organiserPassword);
    await page.waitForURL(/\/dashboard\/(events)?$/);
    await expectText(page.locator('h1'), 'Events of Demo Running Club');
    await expectText(page.locator('tbody tr td').first(), 'Demo City 10K');

    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'em_dashboard')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
    expect(cookies.find((c) => c.name === 'em_dashboard_login')).toBeUndefined();
    const stored = await tokensInStorage(page);
    expect(stored.readableCookies).toBe('');
    expect(stored.values.filter((v) => /eyJ|Bearer/.test(v))).toEqual([]);
    await screenshot('2-events-desktop');
  });

  it('refuses a callback whose state this browser did not start, and a call without the CSRF token', async () => {
    const forged = await page.request.get(`${dashboardUrl}callback?code=abc&state=forged-state`);
    expect(forged.status()).toBe(400);
    expect(await forged.text()).toMatch(/state/);
    const noCsrf = await page.request.post(`${dashboardUrl}api/graphql`, {
      headers: { 'content-type': 'application/json' },
      data: { query: '{ organisations { id } }' },
    });
    expect(noCsrf.status()).toBe(403);
  });

  it('throttles sign-in attempts of an account after the limit', async () => {
    const other = await browser.newContext();
    const p = await other.newPage();
    await p.goto(`${dashboardUrl}login`);
    await p.waitForURL(/\/interaction\//);
    const statuses: number[] = [];
    for (let i = 0; i < MAX_FAILURES + 1; i++)
      statuses.push(await submitSignIn(p, 'someone@demo.example', `wrong password ${i}`));
    expect(statuses).toEqual([...Array(MAX_FAILURES).fill(401), 429]);
    await expectText(p.locator('.error'), 'Too many failed sign-ins: try again later.');
    await other.close();
  });

  it('checks no more passwords than the limit when tries for one account arrive all at once', async () => {
    const other = await browser.newContext();
    const p = await other.newPage();
    await p.goto(`${dashboardUrl}login`);
    await p.waitForURL(/\/interaction\//);
    const action = new URL((await p.locator('form').getAttribute('action'))!, p.url()).toString();
    // The attacker's view: ten form posts sent together, with the interaction's cookies (the context's own requests).
    const statuses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        other.request
          .post(action, {
            form: { email: 'together@demo.example', password: `wrong password ${i}` },
            maxRedirects: 0,
          })
          .then((r) => r.status()),
      ),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(MAX_FAILURES);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10 - MAX_FAILURES);
    await other.close();
  });

  let eventId: number;
  it('creates an event and switches a flag through the gateway with the provider token', async () => {
    await page.locator('#new-name').fill('Dashboard Trail 21K');
    await page.locator('#new-date').fill('2026-09-13');
    await page.getByRole('button', { name: 'Create event' }).click();
    await page.waitForURL(/\/dashboard\/events\/\d+\/settings$/);
    eventId = Number(/events\/(\d+)\//.exec(page.url())![1]);
    await expectText(page.locator('h1'), 'Dashboard Trail 21K: settings');
    await page.locator('#flag-bib_search').check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expectText(page.locator('.ok'), 'Saved: the REST API sees the change now.');
    await screenshot('3-settings-desktop');
  });

  let token: string;
  it('creates a token in the Developer Zone: shown once, it works against REST', async () => {
    await page.getByRole('link', { name: 'Developer Zone' }).click();
    await page.waitForURL(/\/dashboard\/developer$/);
    await page.locator('#key-name').fill('Agency website');
    await page.getByRole('button', { name: 'Create Token' }).click();
    token = (await page.locator('[data-testid=new-token]').textContent())!.trim();
    expect(token.length).toBeGreaterThan(20);
    const res = await fetch(`${info.restUrl}/api/v1/ext/${info.demo.orgId}/events`, {
      headers: { 'x-api-key': token },
    });
    expect(res.status).toBe(200);
    const events = ((await res.json()) as { data: Array<{ id: number }> }).data;
    expect(JSON.stringify(events)).toContain('Dashboard Trail 21K');
    await page.reload();
    await expectText(page.locator('tbody'), /Agency website/);
    expect(await page.content()).not.toContain(token);
  });

  it('creates a browser key for one event in the Developer Zone: reads from the allowed host only, that event only, no writes', async () => {
    await page.locator('#key-name').fill('Race site gallery');
    await page.locator('#key-hosts').fill('localhost');
    await page.locator('#key-event').selectOption(String(eventId));
    await page.locator('#key-read-only').check();
    await page.getByRole('button', { name: 'Create Token' }).click();
    const key = (await page.locator('[data-testid=new-token]').textContent())!.trim();
    const row = page.locator('tbody tr', { hasText: 'Race site gallery' });
    await expectText(row.locator('td[data-label=Access]'), 'read and search');
    // The first call shown works as shown: with the Origin of the allowed host.
    expect(await page.locator('pre.curl').textContent()).toContain("-H 'Origin: http://localhost'");
    await expectText(row.locator('td[data-label=Events]'), 'Dashboard Trail 21K');
    await expectText(row.locator('td[data-label=Hosts]'), 'localhost');
    await expectText(page.locator('tbody tr', { hasText: 'Agency website' }).locator('td[data-label=Access]'), 'full');
    await screenshot('3b-developer-desktop');
    const call = (path: string, origin: string, init: RequestInit = {}) =>
      fetch(`${info.restUrl}/api/v1/ext/${info.demo.orgId}${path}`, {
        ...init,
        headers: { 'x-api-key': key, origin, 'content-type': 'application/json' },
      });
    expect((await call(`/event/${eventId}/details`, 'http://localhost')).status).toBe(200);
    expect((await call(`/event/${eventId}/details`, 'https://elsewhere.example')).status).toBe(403);
    expect((await call(`/event/${info.demo.eventId}/details`, 'http://localhost')).status).toBe(403);
    const write = await call(`/event/${eventId}/pipeline/photos/process`, 'http://localhost', {
      method: 'POST',
      body: '{}',
    });
    expect(write.status).toBe(403);

    // Deleted for good from the same table (an organisation holds a bounded number of keys): refused from then on.
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await row.getByRole('button', { name: 'Delete Race site gallery' }).click();
    await expectCount(page.locator('tbody tr', { hasText: 'Race site gallery' }), 0);
    expect(asked).toContain('Race site gallery');
    expect((await call(`/event/${eventId}/details`, 'http://localhost')).status).toBe(403);
  });

  it('uploads a photo and shows it processed', async () => {
    await page.goto(`${dashboardUrl}events/${eventId}/photos`);
    await page.locator('#photo-files').setInputFiles(SAMPLE_PHOTO);
    await expectText(page.locator('.files li .file-state'), 'imported', 60_000);
    const processed = await settle(
      () => page.locator('[data-testid=count-processed]').textContent(),
      (t) => t === '1',
      300_000,
    );
    expect(processed).toBe('1');
    await screenshot('4-photos-desktop');
  });

  it('reviews the photo: its face boxes drawn, a bib added and removed, hidden, shown, deleted', async () => {
    await page.goto(`${dashboardUrl}events/${eventId}/review`);
    await expectText(page.locator('h1'), 'Review');
    const queued = page.locator('.queue .thumb');
    await expectText(queued.first(), /no bib/);
    await queued.first().click();
    const photo = page.locator('[data-testid=reviewed-photo]');
    await expectText(photo.locator('h2'), /sample1\.jpg/);
    expect(await photo.locator('.box.face').count()).toBeGreaterThan(0);
    await page.locator('#add-bib').fill('4242');
    await page.getByRole('button', { name: 'Add bib' }).click();
    await expectText(page.locator('.ok'), 'Bib 4242 added: participants find the photo by it.');
    await expectText(photo.locator('[data-testid=bib-row]').first(), /4242\s*accepted\s*organiser/);
    await expectText(page.locator('[data-testid=queue-empty]'), 'Nothing to review.');
    await screenshot('6-review-desktop');
    const phone = await browser.newContext({
      viewport: { width: 360, height: 780 },
      isMobile: true,
      hasTouch: true,
      storageState: await context.storageState(),
    });
    const p = await phone.newPage();
    await p.goto(`${dashboardUrl}events/${eventId}/review`);
    await p
      .locator('#photo-id')
      .fill(
        new URL((await photo.locator('img').getAttribute('src')) ?? '', 'http://x').pathname
          .split('/')
          .pop()!
          .replace('.jpg', ''),
      );
    await p.getByRole('button', { name: 'Open' }).click();
    await expectText(p.locator('[data-testid=reviewed-photo] h2'), /sample1\.jpg/);
    await screenshot('7-review-phone', p);
    await phone.close();
    await page.getByRole('button', { name: 'Remove bib 4242' }).click();
    await expectText(photo.locator('[data-testid=bib-row]').first(), /4242\s*rejected\s*organiser/);
    await page.getByRole('button', { name: 'Hide' }).click();
    await expectText(photo.locator('h2'), /hidden/);
    await page.getByRole('button', { name: 'Unhide' }).click();
    await expectText(page.locator('.ok'), 'The photo is shown again.');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await expectText(page.locator('.ok'), 'Photo sample1.jpg deleted.');
    expect(await page.locator('[data-testid=reviewed-photo]').count()).toBe(0);
  });

  it('shows the events page counts only to whom pipelineStatus and eventVideos would (a read-only or scoped key: null)', async () => {
    const counts = `query($orgId: Int!) { events(orgId: $orgId, pageSize: 100) {
      items { id photoCounts { total processed failed live } videoCounts { total indexed failed } } } }`;
    const asKey = async (key: string) => {
      const res = await fetch(info.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ query: counts, variables: { orgId: info.demo.orgId } }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as {
        data: { events: { items: Array<{ id: number; photoCounts: unknown; videoCounts: unknown }> } };
        errors?: Array<{ message: string; path: Array<string | number>; extensions: { code: string } }>;
      };
    };
    const keyOf = async (...flags: string[]) =>
      (JSON.parse(await cli('create-key', '--org', String(info.demo.orgId), '--json', ...flags)) as { key: string })
        .key;
    const demoEvent = (answer: Awaited<ReturnType<typeof asKey>>) =>
      answer.data.events.items.find((e) => e.id === info.demo.eventId)!;

    const write = await asKey(token);
    expect(write.errors).toBeUndefined();
    expect(demoEvent(write).photoCounts).toMatchObject({ total: expect.any(Number), failed: 0 });
    expect((demoEvent(write).photoCounts as { total: number }).total).toBeGreaterThan(0);
    expect(demoEvent(write).videoCounts).toMatchObject({ total: expect.any(Number) });

    // A read-only key lists the published events (no drafts), each without its counts, refused as the root fields are.
    const readOnly = await asKey(await keyOf('--name', 'Participant page', '--read-only'));
    expect(readOnly.data.events.items.map((e) => e.id)).toContain(info.demo.eventId);
    expect(readOnly.data.events.items.every((e) => e.photoCounts === null && e.videoCounts === null)).toBe(true);
    expect(readOnly.errors).toHaveLength(2 * readOnly.data.events.items.length);
    expect([...new Set(readOnly.errors!.map((e) => `${e.extensions.code}: ${e.message}`))].sort()).toEqual([
      'FORBIDDEN: A read-only (browser) key cannot read this organiser view',
      'FORBIDDEN: This API key is read-only',
    ]);

    // A key of the demo event only lists that event, with its counts.
    const scoped = await asKey(await keyOf('--name', 'Demo event only', '--events', String(info.demo.eventId)));
    expect(scoped.data.events.items.map((e) => e.id)).toEqual([info.demo.eventId]);
    expect(scoped.errors).toBeUndefined();
    expect(demoEvent(scoped).photoCounts).toEqual(demoEvent(write).photoCounts);

    await page.goto(`${dashboardUrl}events`);
    await expectText(
      page.locator('tbody tr', { hasText: 'Demo City 10K' }).locator('td[data-label=Photos]'),
      /^\d+ \(\d+\)$/,
    );
  });

  it('retries one failed photo alone from the photos page', async () => {
    const store = new ObjectStore(loadConfig({ ...process.env, ...info.env }));
    const [first, second] = await Promise.all(
      [40, 200].map((r) =>
        sharp({ create: { width: 900, height: 600, channels: 3, background: { r, g: 120, b: 90 } } })
          .jpeg()
          .toBuffer(),
      ),
    );
    await store.put(`inbox/${eventId}/retry-first.jpg`, first, 'image/jpeg');
    await store.put(`inbox/${eventId}/retry-second.jpg`, second, 'image/jpeg');
    const rest = (path: string) =>
      fetch(`${info.restUrl}/api/v1/ext/${info.demo.orgId}/event/${eventId}/pipeline/photos/${path}`, {
        method: 'POST',
        headers: { 'x-api-key': token },
      }).then(async (r) => ((await r.json()) as { data: unknown }).data);
    const imported = (await rest('import')) as { files: Array<{ key: string; image_id: string }> };
    const originals = await store.list(`originals/${eventId}/`);
    const originalOf = (name: string) => {
      const id = imported.files.find((f) => f.key.endsWith(name))!.image_id;
      return originals.find((o) => o.key.includes(id))!.key;
    };
    // Storage answers a broken file in place of both originals: the worker fails them at once.
    const broken = first.subarray(0, 300);
    await store.put(originalOf('retry-first.jpg'), broken, 'image/jpeg');
    await store.put(originalOf('retry-second.jpg'), broken, 'image/jpeg');

    await page.goto(`${dashboardUrl}events/${eventId}/photos`);
    await expectText(page.locator('[data-testid=status-mode]'), /^Live/);
    expect(await rest('process')).toEqual({ queued: 2 });
    const failed = page.locator('[data-testid=failed-photos] li');
    await expectCount(failed, 2);
    await expectText(failed.first(), /failed: /);
    await screenshot('8-photos-failed-desktop');

    // The first original is whole again: its Retry processes it, the second stays failed.
    await store.put(originalOf('retry-first.jpg'), first, 'image/jpeg');
    await page.getByRole('button', { name: 'Retry retry-first.jpg' }).focus();
    await page.keyboard.press('Enter');
    await expectCount(failed, 1);
    await expectText(failed.first().locator('.file-name'), 'retry-second.jpg');
    const processed = await settle(
      () => page.locator('[data-testid=count-processed]').textContent(),
      (t) => t === '1',
      300_000,
    );
    expect(processed).toBe('1');
    await page.reload();
    await expectCount(failed, 1);
    await expectText(failed.first().locator('.file-name'), 'retry-second.jpg');
  });

  it('shows the pages on a phone', async () => {
    const phone = await browser.newContext({
      viewport: { width: 360, height: 780 },
      isMobile: true,
      hasTouch: true,
      storageState: await context.storageState(),
    });
    const p = await phone.newPage();
    await p.goto(`${dashboardUrl}events`);
    await expectText(p.locator('h1'), 'Events of Demo Running Club');
    await screenshot('5-events-phone', p);
    // The README's pictures are refreshed on request only: a test run leaves the tracked files alone.
    if (process.env.UPDATE_DOCS_IMAGES) {
      copyFileSync(path.join(OUT, '5-events-phone.png'), path.join(DOCS_IMAGES, 'dashboard-phone.png'));
      copyFileSync(path.join(OUT, '2-events-desktop.png'), path.join(DOCS_IMAGES, 'dashboard-desktop.png'));
    }
    await phone.close();
  });

  const pipelineOf = async (eventId: number) => {
    const query = `query($orgId: Int!, $eventId: Int!) { pipelineStatus(orgId: $orgId, eventId: $eventId) {
      total imported queued processing processed failed failures { reason count } } }`;
    const res = await fetch(info.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': token },
      body: JSON.stringify({ query, variables: { orgId: info.demo.orgId, eventId } }),
    });
    return `the pipeline says ${res.status} ${await res.text()}`;
  };

  it('uploads 20 photos to a new event, watches them reach processed, then deletes the event with its progress', async () => {
    await page.goto(`${dashboardUrl}events`);
    await page.locator('#new-name').fill('Dashboard Night 10K');
    await page.locator('#new-date').fill('2026-10-03');
    await page.getByRole('button', { name: 'Create event' }).click();
    await page.waitForURL(/\/dashboard\/events\/\d+\/settings$/);
    const doomed = Number(/events\/(\d+)\//.exec(page.url())![1]);

    // Twenty different photos (the pipeline keeps one of identical files): the sample, each a little brighter.
    const dir = mkdtempSync(path.join(tmpdir(), 'em-dashboard-twenty-'));
    const files: string[] = [];
    for (let i = 0; i < 20; i++) {
      const file = path.join(dir, `night-${String(i + 1).padStart(2, '0')}.jpg`);
      await sharp(SAMPLE_PHOTO)
        .resize({ width: 800 })
        .modulate({ brightness: 1 + i * 0.01 })
        .jpeg()
        .toFile(file);
      files.push(file);
    }
    await page.goto(`${dashboardUrl}events/${doomed}/photos`);
    await page.locator('#photo-files').setInputFiles(files);
    // Waits for twenty processed, or stops at the first upload the page reports refused or failed.
    const unsent = page.locator(
      '[aria-label=Uploads] li[data-state=rejected], [aria-label=Uploads] li[data-state=failed]',
    );
    const processed = await settle(
      async () =>
        (await unsent.count()) ? 'an upload stopped' : page.locator('[data-testid=count-processed]').textContent(),
      (t) => t === '20' || t === 'an upload stopped',
      600_000,
    );
    // A CI run once saw 19 of 20 here with no log saying why: say whether the page or the pipeline stopped.
    if (processed !== '20') {
      const rows = await page
        .locator('[aria-label=Uploads] li')
        .evaluateAll((items) =>
          items.map(
            (li) => `${li.querySelector('.file-name')?.textContent}: ${li.querySelector('.file-state')?.textContent}`,
          ),
        );
      const uploads = rows.filter((row) => !row.endsWith(': imported')).join('; ') || 'every file imported';
      throw new Error(`the page shows ${processed} processed (uploads: ${uploads}); ${await pipelineOf(doomed)}`);
    }
    rmSync(dir, { recursive: true, force: true });

    const details = () =>
      fetch(`${info.restUrl}/api/v1/ext/${info.demo.orgId}/event/${doomed}/details`, {
        headers: { 'x-api-key': token },
      });
    expect((await details()).status).toBe(200);
    await page.goto(`${dashboardUrl}events/${doomed}/settings`);
    // Offered until the event is live, then the page says it is.
    await page.getByRole('button', { name: 'Go live' }).click();
    await expectText(page.locator('.ok'), 'Live: 20 photos published; new ones are published as they are processed.');
    await expectText(page.locator('.actions-row'), /The event is live: processed photos are published\./);
    expect(await page.getByRole('button', { name: 'Go live' }).count()).toBe(0);
    await page.reload();
    await expectText(page.locator('.actions-row'), /The event is live/);
    expect(await page.getByRole('button', { name: 'Go live' }).count()).toBe(0);
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    // The page follows the deletion's progress (eventDeletion) until done; it may finish within one read.
    const progress: string[] = [];
    const follow = async (r: Response) => {
      if (r.url().endsWith('/api/graphql') && r.request().postData()?.includes('eventDeletion'))
        progress.push(await r.text().catch(() => ''));
    };
    page.on('response', follow);
    await page.getByRole('button', { name: 'Delete event' }).click();
    await page.waitForURL(/\/dashboard\/events$/, { timeout: 300_000 });
    page.off('response', follow);
    expect(asked).toContain('Dashboard Night 10K');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatch(/"eventDeletion":\{"state":"\w+","percent":\d+\}|"errors"/);
    await expectText(page.locator('main'), /Dashboard Trail 21K/);
    expect(await page.locator('main').textContent()).not.toContain('Dashboard Night 10K');
    expect((await details()).status).toBe(404);
  }, 900_000);

  it('signs out: the session cookie no longer works, and the provider asks for the password again', async () => {
    const session = (await context.cookies()).find((c) => c.name === 'em_dashboard')!.value;
    await page.goto(`${dashboardUrl}events`);
    const confirmation = page.waitForResponse(
      (r) => /\/session\/end(\?|$)/.test(r.url()) && r.request().method() === 'GET',
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    // The provider's question may not be framed by another site (a click there would sign the member out).
    const asked = await confirmation;
    expect(asked.headers()['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(asked.headers()['x-frame-options']).toBe('DENY');
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(/\/dashboard\/signed-out$/);
    await expectText(page.locator('p').first(), 'You are signed out.');
    const replayed = await fetch(`${dashboardUrl}api/session`, { headers: { cookie: `em_dashboard=${session}` } });
    expect(replayed.status).toBe(401);
    const graphql = await fetch(`${dashboardUrl}api/graphql`, {
      method: 'POST',
      headers: { cookie: `em_dashboard=${session}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ organisations { id } }' }),
    });
    expect(graphql.status).toBe(401);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/interaction\//);
    await expect(page.locator('#password').count()).resolves.toBe(1);
  });

  it('gives an invited member a set-password link with the CLI', async () => {
    const out = await cli('set-password', '--email', 'photographer@demo.example');
    const link = /https?:\/\/\S+\/set-password\?token=\S+/.exec(out)![0];
    const p = await context.newPage();
    await p.goto(link);
    await expectText(p.locator('h1'), 'Set your password');
    await p.locator('#password').fill('a long enough password');
    await p.getByRole('button', { name: 'Set password' }).click();
    await expectText(p.locator('h1'), 'Password set');
    await p.goto(link);
    await expectText(p.locator('h1'), 'Link not valid');
    await p.close();
  });

  it("keeps a member's own browser signing in while someone else's wrong passwords lock the account", async () => {
    // Someone who knows the e-mail sends wrong passwords from another browser until the account is refused there.
    const attacker = await browser.newContext();
    const a = await attacker.newPage();
    await a.goto(`${dashboardUrl}login`);
    await a.waitForURL(/\/interaction\//);
    const statuses: number[] = [];
    for (let i = 0; i <= MAX_FAILURES; i++)
      statuses.push(await submitSignIn(a, 'organiser@demo.example', `a guess ${i}`));
    expect(statuses).toEqual([...Array(MAX_FAILURES).fill(401), 429]);
    expect(await submitSignIn(a, 'organiser@demo.example', info.demo.organiserPassword)).toBe(429);
    await attacker.close();
    // The member's browser, which signed in before (the first test) and is at the sign-in form since signing out, is
    // not locked out by them: the provider knows it by a device cookie, out of page script's reach.
    expect(await submitSignIn(page, 'organiser@demo.example', info.demo.organiserPassword)).toBeLessThan(400);
    await page.waitForURL(/\/dashboard\/(events)?$/);
    await expectText(page.locator('h1'), 'Events of Demo Running Club');
    const device = (await context.cookies(`http://localhost:${info.env.IDENTITY_PORT}/`)).find(
      (c) => c.name === 'em_signin_device',
    );
    expect(device).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
  });
});
