import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Page, Request } from 'playwright-core';
import sharp from 'sharp';
import { expectText, seriousA11yViolations, settle } from './support/browser';
import { DashboardPlatformInfo, DashboardRig, openDashboard } from './support/dashboard';

/**
 * The dashboard's photos page uploads straight to object storage: six files (one over the multipart
 * threshold, one a text file named .jpg), a dropped connection on a part, a reload in the middle of a
 * multipart upload resumed by choosing the file again, a completion the API could not take now (503) kept
 * to complete later; every photo processed, and the gateway and the REST adapter receive none of the photos' bytes.
 */
const OUT = path.join(__dirname, '..', 'output', 'dashboard-uploads');
const FIXTURES = path.resolve(__dirname, '../../../shared/fixtures/bibs');
const MiB = 1024 * 1024;
/** The least S3 allows: files of 5 MiB and more go up in parts of 5 MiB. */
const PART_BYTES = 5 * MiB;

let rig: DashboardRig;
let info: DashboardPlatformInfo;
let dashboardUrl: string;
let page: Page;
let tmp: string;
const files: Record<string, string> = {};
let eventId: number;

/** The bytes of request bodies a service received so far (its em_request_body_bytes_total). */
async function bodyBytes(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return Number(/^em_request_body_bytes_total(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? NaN);
}

const bodyCounters = () =>
  Promise.all([
    bodyBytes(`http://127.0.0.1:${info.env.REST_OPERATOR_PORT}/metrics`),
    bodyBytes(`http://127.0.0.1:${info.env.GATEWAY_PORT}/metrics`),
  ]);

async function screenshot(name: string, p: Page = page) {
  await p.waitForLoadState('networkidle');
  expect(await seriousA11yViolations(p)).toEqual([]);
  await p.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });
}

const fileState = (name: string) => page.locator('.files li', { hasText: name }).locator('.file-state');

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'em-uploads-'));
  // Two photos over the threshold, made from the fixtures at full quality (distinct content each).
  for (const [name, source] of [
    ['large-prom.jpg', 'prom.jpg'],
    ['large-prom2.jpg', 'prom2.jpg'],
  ]) {
    files[name] = path.join(tmp, name);
    await sharp(path.join(FIXTURES, source)).resize(4800).jpeg({ quality: 100 }).toFile(files[name]);
    expect(statSync(files[name]).size).toBeGreaterThan(PART_BYTES);
  }
  files['notes.jpg'] = path.join(tmp, 'notes.jpg');
  writeFileSync(files['notes.jpg'], 'These are the race notes, not a photo.\n'.repeat(50));
  files['busy-day.jpg'] = path.join(tmp, 'busy-day.jpg');
  await sharp(path.join(FIXTURES, 'prom.jpg')).resize(1200).jpeg({ quality: 85 }).toFile(files['busy-day.jpg']);
  for (const name of ['0017-IMG_0035.JPG', '0236-IMG_0273.JPG', 'prom.jpg', 'prom2.jpg'])
    files[name] = path.join(FIXTURES, name);

  rig = await openDashboard({
    prefix: 'em-dashboard-uploads-',
    env: { UPLOAD_MULTIPART_THRESHOLD_BYTES: String(PART_BYTES), UPLOAD_PART_BYTES: String(PART_BYTES) },
    signInAs: 'demo organiser',
  });
  ({ info, dashboardUrl, page } = rig);
  await page.locator('#new-name').fill('Upload Marathon');
  await page.locator('#new-date').fill('2026-10-04');
  await page.getByRole('button', { name: 'Create event' }).click();
  await page.waitForURL(/\/dashboard\/events\/\d+\/settings$/);
  eventId = Number(/events\/(\d+)\//.exec(page.url())![1]);
}, 900_000);

afterAll(async () => {
  await rig?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('photos uploaded from the dashboard straight to object storage', () => {
  it('uploads six files 4 at a time, retries a part whose connection dropped, refuses the text file', async () => {
    const storage = new URL(info.env.S3_ENDPOINT).origin;
    const before = await bodyCounters();
    const puts: Request[] = [];
    page.on('request', (r) => r.method() === 'PUT' && puts.push(r));
    let dropped = 0;
    // The first part of the large photo loses its connection once; the page must send it again.
    await page.route(
      (url) => url.origin === storage && url.searchParams.get('partNumber') === '1',
      async (route) => {
        if (route.request().method() === 'PUT' && dropped++ === 0) return route.abort('connectionreset');
        return route.continue();
      },
    );
    // The processing counts follow the photoStatus subscription (graphql-ws through the dashboard's server).
    const transitions: Array<{ photoId: string; status: string }> = [];
    page.on('websocket', (ws) =>
      ws.on('framereceived', ({ payload }) => {
        const message = JSON.parse(String(payload)) as { type: string; payload?: { data?: { photoStatus?: never } } };
        if (message.type === 'next' && message.payload?.data?.photoStatus)
          transitions.push(message.payload.data.photoStatus);
      }),
    );
    await page.goto(`${dashboardUrl}events/${eventId}/photos`);
    const six = ['large-prom.jpg', 'notes.jpg', '0017-IMG_0035.JPG', '0236-IMG_0273.JPG', 'prom.jpg', 'prom2.jpg'];
    await page.locator('#photo-files').setInputFiles(six.map((name) => files[name]));

    for (const name of six.filter((n) => n !== 'notes.jpg')) await expectText(fileState(name), 'imported', 180_000);
    await expectText(
      fileState('notes.jpg'),
      'rejected: notes.jpg is not a photo we can read: not an image, or a corrupt one',
    );
    await expectText(page.locator('label[for=total-progress]'), 'Total: 6 of 6 files');
    await page.unrouteAll({ behavior: 'ignoreErrors' });

    expect(dropped).toBe(2);
    // Every PUT went to storage, the large photo in its two parts (part 1 twice: the retry).
    expect(puts.every((r) => new URL(r.url()).origin === storage)).toBe(true);
    const parts = puts.filter((r) => new URL(r.url()).searchParams.has('partNumber'));
    expect(parts.map((r) => new URL(r.url()).searchParams.get('partNumber')).sort()).toEqual(['1', '1', '2']);
    expect(puts.length).toBe(5 + 3);

    // The platform's own processes saw API calls only: far less than one photo's bytes.
    const after = await bodyCounters();
    const smallest = Math.min(...six.filter((n) => n !== 'notes.jpg').map((n) => statSync(files[n]).size));
    expect(after[0] - before[0]).toBeLessThan(smallest);
    expect(after[1] - before[1]).toBeLessThan(smallest);

    const processed = await settle(
      () => page.locator('[data-testid=count-processed]').textContent(),
      (t) => t === '5',
      600_000,
    );
    expect(processed).toBe('5');
    await expectText(page.locator('[data-testid=status-mode]'), 'Live: counts change as each photo moves on.');
    const processedIds = new Set(transitions.filter((t) => t.status === 'processed').map((t) => t.photoId));
    expect(processedIds.size).toBe(5);
    expect(transitions.some((t) => t.status === 'queued')).toBe(true);
    expect(await page.locator('[data-testid=count-total]').textContent()).toBe('5');
    await screenshot('1-photos-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot('2-photos-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
  }, 900_000);

  it('resumes a multipart upload after a reload: only the missing part is sent', async () => {
    const storage = new URL(info.env.S3_ENDPOINT).origin;
    // Part 2 hangs as on a lost network until the page is reloaded; afterwards it passes.
    let hang = true;
    await page.route(
      (url) => url.origin === storage && url.searchParams.get('partNumber') === '2',
      (route) => (hang ? undefined : route.continue()),
    );
    const part1 = page.waitForResponse(
      (r) => r.request().method() === 'PUT' && new URL(r.url()).searchParams.get('partNumber') === '1',
    );
    await page.locator('#photo-files').setInputFiles(files['large-prom2.jpg']);
    expect((await part1).status()).toBe(200);
    await page.waitForRequest((r) => new URL(r.url()).searchParams.get('partNumber') === '2');
    await page.reload();
    hang = false;

    await expectText(page.locator('[data-testid=unfinished] li'), /^large-prom2\.jpg6 MBForget$/);
    await screenshot('3-unfinished-desktop');
    const puts: string[] = [];
    page.on('request', (r) => r.method() === 'PUT' && puts.push(new URL(r.url()).searchParams.get('partNumber')!));
    await page.locator('#photo-files').setInputFiles(files['large-prom2.jpg']);
    await expectText(fileState('large-prom2.jpg'), 'imported', 180_000);
    expect(puts).toEqual(['2']);
    expect(await page.locator('[data-testid=unfinished]').count()).toBe(0);
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    await settle(
      () => page.locator('[data-testid=count-processed]').textContent(),
      (t) => t === '6',
      600_000,
    );
  }, 900_000);
  it('keeps an upload the API could not complete now (503): failed, not refused, and completed without sending it again', async () => {
    const storage = new URL(info.env.S3_ENDPOINT).origin;
    let busy = true;
    // The API is busy for the first completion only, as during a restart.
    await page.route('**/dashboard/api/graphql', async (route) => {
      if (!busy || !route.request().postData()?.includes('completePhotoUpload')) return route.continue();
      busy = false;
      return route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          errors: [{ message: 'The service is temporarily unavailable', extensions: { code: 'UNAVAILABLE' } }],
        }),
      });
    });
    const puts: string[] = [];
    page.on('request', (r) => r.method() === 'PUT' && new URL(r.url()).origin === storage && puts.push(r.url()));
    await page.goto(`${dashboardUrl}events/${eventId}/photos`);
    await page.locator('#photo-files').setInputFiles(files['busy-day.jpg']);
    await expectText(fileState('busy-day.jpg'), 'failed: The service is temporarily unavailable');
    await expectText(page.locator('[data-testid=unfinished] li'), /^busy-day\.jpg\d+ KBForget$/);
    expect(puts).toHaveLength(1);

    await page.locator('#photo-files').setInputFiles(files['busy-day.jpg']);
    // A second row for the file chosen again: completed from what storage holds.
    const states = await settle(
      () => fileState('busy-day.jpg').allTextContents(),
      (t) => t.length === 2 && t[1] !== 'waiting' && t[1] !== 'uploading',
      60_000,
    );
    expect(states[1]).toBe('imported');
    expect(puts).toHaveLength(1);
    expect(await page.locator('[data-testid=unfinished]').count()).toBe(0);
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  }, 300_000);
});
