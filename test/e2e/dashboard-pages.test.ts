import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ffmpegPath } from '@em/core/media';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { expectText, seriousA11yViolations } from './support/browser';
import { DashboardPlatformInfo, DashboardRig, openDashboard, signIn } from './support/dashboard';
import { startMailbox } from './support/mailbox';

/**
 * The dashboard's members, usage, videos and start list pages in Debian's chromium, as the demo
 * organiser uses them (and as a member with the `user` role sees them), on a platform of their own.
 */
const OUT = path.join(__dirname, '..', 'output', 'dashboard-pages');
const PHONE = { width: 390, height: 844 };

let rig: DashboardRig;
let info: DashboardPlatformInfo;
let dashboardUrl: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let dir: string;
let mailbox: Awaited<ReturnType<typeof startMailbox>>;

/** axe finds no serious violation, then the page is saved at desktop width and at a phone's. */
async function screenshots(name: string, url: string, ready: (p: Page) => Promise<void>) {
  await page.waitForLoadState('networkidle');
  expect(await seriousA11yViolations(page)).toEqual([]);
  await page.screenshot({ path: path.join(OUT, `${name}-desktop.png`), fullPage: true });
  const phone = await browser.newContext({
    viewport: PHONE,
    isMobile: true,
    hasTouch: true,
    storageState: await context.storageState(),
  });
  const p = await phone.newPage();
  await p.goto(url);
  await ready(p);
  await p.waitForLoadState('networkidle');
  expect(await seriousA11yViolations(p)).toEqual([]);
  // Nothing wider than the phone's screen but what scrolls inside its own box (the chart).
  expect(await p.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
  await p.screenshot({ path: path.join(OUT, `${name}-phone.png`), fullPage: true });
  await phone.close();
}

const rowOf = (p: Page, email: string) => p.locator('[data-testid=member-row]', { hasText: email });
/** A member's role (the value of its select) and status, as the row shows them. */
const memberShown = async (p: Page, email: string) => ({
  role: await p.getByLabel(`Role of ${email}`).inputValue(),
  status: (await rowOf(p, email).locator('.status').textContent())?.trim(),
});

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  dir = mkdtempSync(path.join(tmpdir(), 'em-dashboard-pages-'));
  mailbox = await startMailbox();
  rig = await openDashboard({
    prefix: 'em-dashboard-pages-',
    env: { SMTP_URL: mailbox.url },
    contextOptions: { acceptDownloads: true },
    signInAs: 'demo organiser',
  });
  ({ info, dashboardUrl, browser, context, page } = rig);
}, 900_000);

afterAll(async () => {
  await rig?.stop();
  await mailbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the dashboard pages for members, usage, videos and the start list', () => {
  it('invites a member (pending), changes their role, removes them; the last admin stays', async () => {
    await page.getByRole('link', { name: 'Members' }).click();
    await page.waitForURL(/\/dashboard\/members$/);
    await expectText(page.locator('h1'), 'Members of Demo Running Club');
    await expectText(rowOf(page, 'organiser@demo.example').locator('.status'), 'active');
    expect(await memberShown(page, 'organiser@demo.example')).toEqual({ role: 'admin', status: 'active' });

    await page.locator('#invite-email').fill('New.Helper@demo.example');
    await page.locator('#invite-role').selectOption('user');
    await page.getByRole('button', { name: 'Invite' }).click();
    await expectText(
      page.locator('.ok'),
      /new\.helper@demo\.example invited as user: pending until they first sign in\. An invitation e-mail is on its way/,
    );
    const invitation = await mailbox.mailTo('new.helper@demo.example');
    expect(invitation.subject).toBe('Demo Running Club invited you to its event photos dashboard');
    expect(invitation.text).toMatch(/^Demo Running Club invited you as a member\./);
    expect(invitation.text).toMatch(/\/set-password\?token=[\w-]{20,}/);
    await expectText(rowOf(page, 'new.helper@demo.example').locator('.status'), 'pending');

    await page.getByLabel('Role of new.helper@demo.example').selectOption('admin');
    await page.getByRole('button', { name: 'Save role of new.helper@demo.example' }).click();
    await expectText(page.locator('.ok'), 'new.helper@demo.example is admin now.');
    await page.reload();
    expect(await memberShown(page, 'new.helper@demo.example')).toEqual({ role: 'admin', status: 'pending' });

    // The pending admin does not count: the organiser is still the last active admin.
    await page.getByLabel('Role of organiser@demo.example').selectOption('user');
    await page.getByRole('button', { name: 'Save role of organiser@demo.example' }).press('Enter');
    await expectText(page.locator('.error'), /last admin of the organisation/);
    expect(await page.getByLabel('Role of organiser@demo.example').inputValue()).toBe('admin');
    await page.getByRole('button', { name: 'Remove organiser@demo.example' }).click();
    await page.getByRole('button', { name: 'Yes, remove' }).click();
    await expectText(page.locator('.error'), /last admin of the organisation/);
    expect(await memberShown(page, 'organiser@demo.example')).toEqual({ role: 'admin', status: 'active' });

    await page.getByRole('button', { name: 'Remove new.helper@demo.example' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await rowOf(page, 'new.helper@demo.example').count()).toBe(1);
    await page.getByRole('button', { name: 'Remove new.helper@demo.example' }).click();
    await page.getByRole('button', { name: 'Yes, remove' }).click();
    await expectText(page.locator('.ok'), 'new.helper@demo.example removed from Demo Running Club.');
    expect(await rowOf(page, 'new.helper@demo.example').count()).toBe(0);

    await page.locator('#invite-email').fill('viewer@demo.example');
    await page.getByRole('button', { name: 'Invite' }).click();
    await expectText(rowOf(page, 'viewer@demo.example').locator('.status'), 'pending');
    await screenshots('members', `${dashboardUrl}members`, (p) =>
      expectText(rowOf(p, 'viewer@demo.example').locator('.status'), 'pending'),
    );
  });

  it('lets an invited member set a password from the mailed link; members and usage are for admins only', async () => {
    const mail = await mailbox.mailTo('viewer@demo.example');
    const link = /https?:\/\/\S+\/set-password\?token=[\w-]+/.exec(mail.text)![0];
    const other = await browser.newContext();
    const p = await other.newPage();
    await p.goto(link);
    await p.locator('#password').fill('the viewer password');
    await p.getByRole('button', { name: 'Set password' }).click();
    await expectText(p.locator('h1'), 'Password set');
    await signIn(p, dashboardUrl, 'viewer@demo.example', 'the viewer password');
    await p.goto(`${dashboardUrl}members`);
    await expectText(p.locator('main p'), /^Admins only/);
    expect(await p.locator('#invite-email').count()).toBe(0);
    await p.goto(`${dashboardUrl}usage`);
    await expectText(p.locator('main p'), /^Admins only/);
    await other.close();
  });

  it('uploads a small video with progress and shows its indexing status live (the videoStatus subscription)', async () => {
    const video = path.join(dir, 'gate-camera.mp4');
    execFileSync(ffmpegPath(), [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-t', '2'],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', video],
    ]);
    await page.goto(`${dashboardUrl}events`);
    await page.getByRole('link', { name: `Videos of Demo City 10K` }).click();
    await page.waitForURL(new RegExp(`/dashboard/events/${info.demo.eventId}/videos$`));
    // What the page's subscription receives: the video's transitions, pushed by the media subgraph and the ml-worker.
    const pushed: string[] = [];
    page.on('websocket', (ws) =>
      ws.on('framereceived', ({ payload }) => {
        const message = JSON.parse(String(payload)) as { payload?: { data?: { videoStatus?: { status: string } } } };
        const status = message.payload?.data?.videoStatus?.status;
        if (status) pushed.push(status);
      }),
    );
    await page.reload();
    await expectText(page.locator('[data-testid=video-status-mode]'), /^Live/);
    await page.locator('#video-files').setInputFiles(video);
    await expectText(page.locator('.files li .file-state'), 'added', 60_000);
    expect(await page.locator('.files li progress').getAttribute('value')).toBe('1');
    const row = page.locator('[data-testid=video-row]', { hasText: 'gate-camera.mp4' });
    await expectText(row.locator('[data-testid=video-status]'), /^(uploaded|indexing|indexed)$/);
    await expectText(row.locator('[data-testid=video-status]'), 'indexed', 300_000);
    await expectText(row, /0:02/);
    expect(pushed[0]).toBe('uploaded');
    expect(pushed).toContain('indexing');
    expect(pushed[pushed.length - 1]).toBe('indexed');

    // A file that is not a video is refused with the reason, and nothing is listed for it.
    const notVideo = path.join(dir, 'notes.mp4');
    writeFileSync(notVideo, 'these are not the frames you are looking for');
    await page.locator('#video-files').setInputFiles(notVideo);
    await expectText(page.locator('.files li .file-state').nth(1), 'failed');
    await expectText(page.locator('.files li .file-reason'), /not a readable video/);
    expect(await page.locator('[data-testid=video-row]', { hasText: 'notes.mp4' }).count()).toBe(0);
    await screenshots('videos', page.url(), (p) => expectText(p.locator('[data-testid=video-status]').first(), /\w/));
  });

  it("shows the seeded event's usage in the table and downloads it as CSV", async () => {
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.waitForURL(/\/dashboard\/usage$/);
    const month = new Date().toISOString().slice(0, 7);
    const row = page.locator('[data-testid=usage-table] tbody tr', { hasText: 'Demo City 10K' });
    await expectText(row, new RegExp(`^${month}Demo City 10K`));
    const cells = await row.locator('td').allTextContents();
    expect(Number(cells[3])).toBeGreaterThan(0); // the demo's processed photos
    expect(Number(cells[4])).toBeGreaterThanOrEqual(1); // the video uploaded above, at least
    expect(await page.locator('.chart svg rect').count()).toBe(12 * 4);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const csv = readFileSync(await download.path(), 'utf8').split('\r\n');
    expect(csv[0]).toBe('month,event_id,event,face_searches_billed,photos_processed,videos_indexed,clips_made');
    expect(csv).toContain(`${month},${info.demo.eventId},Demo City 10K,${cells.slice(2).join(',')}`);
    expect(csv).toHaveLength((await page.locator('[data-testid=usage-table] tbody tr').count()) + 2);

    // A window with nothing in it, then a backwards one refused in the page.
    await page.locator('#usage-from').fill('2001-01');
    await page.locator('#usage-to').fill('2001-03');
    await page.getByRole('button', { name: 'Show' }).click();
    await expectText(page.locator('main section > p'), 'No usage in these months.');
    expect(await page.locator('.chart svg rect').count()).toBe(3 * 4);
    await page.locator('#usage-from').fill('2001-04');
    await page.getByRole('button', { name: 'Show' }).click();
    await expectText(page.locator('.error'), 'From must not be after To.');
    await page.reload();
    await expectText(row, new RegExp(`^${month}`));
    await screenshots('usage', page.url(), (p) =>
      expectText(p.locator('[data-testid=usage-table] tbody tr').first(), /\d/),
    );
  });

  it('imports a start list with a bad line: the line error is shown, then the valid lines with skipInvalid', async () => {
    const csv = path.join(dir, 'start-list.csv');
    writeFileSync(csv, 'bib,name,team\n9901,Ada Lovelace,"Analytical, Engines"\n,Nobody,\n9902,Grace Hopper,\n');
    await page.goto(`${dashboardUrl}events`);
    await page.getByRole('link', { name: 'Start list of Demo City 10K' }).click();
    await page.waitForURL(new RegExp(`/dashboard/events/${info.demo.eventId}/start-list$`));
    await expectText(page.locator('.event-nav strong'), 'Demo City 10K');
    expect(await page.locator('.event-nav [aria-current=page]').textContent()).toBe('Start list');
    // What the event holds before an import (Append or Replace is chosen knowing it).
    const sizeLine = page.locator('[data-testid=start-list-size]');
    await expectText(sizeLine, /^(The start list has \d+ participants?|This event has no start list yet)\.$/);
    const before = Number(/(\d+)/.exec((await sizeLine.textContent())!)?.[1] ?? 0);
    await page.locator('#start-list-file').setInputFiles(csv);
    await page.getByRole('button', { name: 'Import' }).click();
    await expectText(page.locator('.error p'), /1 line of the start list is invalid; nothing was stored/);
    await expectText(page.locator('.error [data-testid=line-errors] tbody tr'), /^3\s*empty bib$/);

    await page.getByLabel('Skip invalid lines (otherwise one invalid line stores nothing)').check();
    await page.getByRole('button', { name: 'Import' }).click();
    await expectText(
      page.locator('[data-testid=import-outcome]'),
      `Imported 2 participants; the start list has ${before + 2} now.`,
    );
    await expectText(page.locator('[data-testid=start-list-size]'), `The start list has ${before + 2} participants.`);
    await expectText(page.locator('.ok [data-testid=line-errors] tbody tr'), /^3\s*empty bib$/);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the start list (CSV)' }).click(),
    ]);
    const exported = readFileSync(await download.path(), 'utf8');
    expect(exported.split('\n')[0]).toBe('bib,first_name,last_name,name,category,team');
    expect(exported).toContain('9901,,,Ada Lovelace,,"Analytical, Engines"');
    expect(exported).toContain('9902,,,Grace Hopper,,');
    await screenshots('start-list', page.url(), (p) => expectText(p.locator('h1'), 'Start list'));
  });

  it('pages the events of an organisation with more than a page of them; the Developer Zone offers every one', async () => {
    // A weekly race's two years: 101 events older than the demo's, so the oldest two fall on the second page. Created
    // through the dashboard's own backend with the organiser's session (creating events needs an admin).
    await page.goto(`${dashboardUrl}events`);
    const total = await page.evaluate(async (orgId: number) => {
      const { csrfToken } = (await (await fetch('/dashboard/api/session')).json()) as { csrfToken: string };
      const graphql = async (query: string, variables: Record<string, unknown>) => {
        const res = await fetch('/dashboard/api/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
          body: JSON.stringify({ query, variables }),
        });
        const body = (await res.json()) as { data?: { events?: { pageInfo: { total: number } } }; errors?: unknown };
        if (res.status !== 200 || body.errors) throw new Error(`${res.status} ${JSON.stringify(body.errors)}`);
        return body.data!;
      };
      for (let week = 1; week <= 101; week++) {
        const eventDate = new Date(Date.UTC(2020, 0, 5 + 7 * (week - 1))).toISOString().slice(0, 10);
        await graphql(
          'mutation($orgId: Int!, $input: EventInput!) { createEvent(orgId: $orgId, input: $input) { id } }',
          {
            orgId,
            input: { name: `Weekly 5K #${week}`, eventDate },
          },
        );
      }
      const counted = await graphql(
        'query($orgId: Int!) { events(orgId: $orgId, pageSize: 1) { pageInfo { total } } }',
        {
          orgId,
        },
      );
      return counted.events!.pageInfo.total;
    }, info.demo.orgId);
    expect(total).toBeGreaterThan(101);

    const rows = page.locator('table tbody tr');
    await page.reload();
    await expectText(page.locator('[data-testid=events-page]'), `Page 1 of 2 (${total} events)`);
    expect(await rows.count()).toBe(100);
    await expect(page.getByRole('button', { name: 'Previous' }).isDisabled()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(/\/dashboard\/events\?page=2$/);
    await expectText(page.locator('[data-testid=events-page]'), `Page 2 of 2 (${total} events)`);
    expect(await rows.count()).toBe(total - 100);
    await expectText(rows.last(), /^Weekly 5K #1\s*draft\s*2020-01-05/);
    await expect(page.getByRole('button', { name: 'Next' }).isDisabled()).resolves.toBe(true);
    // The address keeps the page: a reload stays on it, Back goes to the first, and a page past the last shows the last.
    await page.reload();
    await expectText(rows.last(), /^Weekly 5K #1/);
    await page.goBack();
    await page.waitForURL(/\/dashboard\/events$/);
    await expectText(page.locator('[data-testid=events-page]'), `Page 1 of 2 (${total} events)`);
    await page.goto(`${dashboardUrl}events?page=9`);
    await page.waitForURL(/\/dashboard\/events\?page=2$/);
    await expectText(rows.last(), /^Weekly 5K #1/);
    await screenshots('events-pages', page.url(), (p) => expectText(p.locator('[data-testid=events-page]'), /^Page 2/));

    // A browser key for the oldest event: the Developer Zone offers it though it is on the second page.
    await page.goto(`${dashboardUrl}developer`);
    const oldest = page.locator('#key-event option', { hasText: /^Weekly 5K #1$/ });
    await oldest.waitFor({ state: 'attached' });
    expect(await page.locator('#key-event option').count()).toBe(total + 1);
    // Creating a key reads the keys again, not every page of events; the table still names the event.
    const eventReads: string[] = [];
    page.on('request', (req) => {
      if (req.url().endsWith('/dashboard/api/graphql') && /\bevents\(/.test(req.postData() ?? ''))
        eventReads.push(req.url());
    });
    await page.locator('#key-name').fill('Weekly archive');
    await page.locator('#key-event').selectOption({ label: 'Weekly 5K #1' });
    await page.getByRole('button', { name: 'Create Token' }).click();
    const row = page.locator('tbody tr', { hasText: 'Weekly archive' });
    await expectText(row.locator('td[data-label=Events]'), 'Weekly 5K #1');
    expect(eventReads).toEqual([]);
  });
});
