import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';
import sharp from 'sharp';
import {
  ensureChromium,
  expectAttribute,
  expectCount,
  expectText,
  firstThumbnailShown,
  seriousA11yViolations,
  settle,
} from './support/browser';
import { faceCrop } from './support/demo-faces';
import { api, bumpContentVersion, closeDb, expectError, expectSuccess, info, sql } from './support/platform';

// Browser globals of the functions evaluated in the page (the test program has no DOM types).
declare const document: any, sessionStorage: any, Touch: any, TouchEvent: any;

/**
 * The participant page (web/) in Debian's headless chromium against the e2e platform's demo event,
 * at 360 px: every state is checked with axe-core and photographed under test/output/participant-page/.
 */
const OUT = path.join(__dirname, '..', 'output', 'participant-page');
const DOCS_IMAGES = path.join(__dirname, '..', '..', 'docs', 'images');
const { orgId, eventId, browserKey } = info.demo;
const base = `/${orgId}/event/${eventId}`;
// The browser key's allowlist holds `localhost`: the page is opened by that name.
const pageOrigin = info.restUrl.replace('127.0.0.1', 'localhost');
const pageUrl = (search = '', key = browserKey) =>
  `${pageOrigin}/events/${orgId}/${eventId}${search}#key=${encodeURIComponent(key)}`;

let browser: Browser;
let context: BrowserContext;
let page: Page;
const requestedOrigins = new Set<string>();

async function state(name: string, p: Page = page, fullPage = true): Promise<void> {
  await p.waitForLoadState('networkidle');
  expect(await seriousA11yViolations(p)).toEqual([]);
  await p.screenshot({ path: path.join(OUT, `${name}.png`), fullPage });
}

const tileCount = () => page.locator('.grid .tile').count();
const thumbnails = () =>
  page.locator('.grid img').evaluateAll((imgs) => imgs.map((i) => (i as any).getAttribute('src')));
/** Opens a page address afresh (a `goto` that changes only the fragment would not reload the page). */
async function open(url: string, p: Page = page): Promise<void> {
  await p.goto('about:blank');
  await p.goto(url);
}
const faceSearchRows = async () =>
  Number((await sql('select count(*)::int as n from face_searches where event_id = $1', [eventId]))[0].n);

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  browser = await chromium.launch({
    executablePath: ensureChromium(),
    args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required'],
  });
  context = await browser.newContext({
    viewport: { width: 360, height: 780 },
    isMobile: true,
    hasTouch: true,
    acceptDownloads: true,
  });
  page = await context.newPage();
  page.on('request', (r) => !r.url().startsWith('data:') && requestedOrigins.add(new URL(r.url()).origin));
}, 600_000);

/** A setting changed in SQL, then the content version bumped as the services do when an organiser changes it. */
async function setFlags(assignments: string): Promise<void> {
  await sql(`update events set ${assignments} where id = $1`, [eventId]);
  await bumpContentVersion(eventId);
}

afterAll(async () => {
  await setFlags('selfie_search = true, bib_search = true');
  await browser?.close();
  await closeDb();
});

describe('the participant page', () => {
  // How fast the first render is, is measured by `npm run bench -- participant-page` (< 1 s), not here.
  it('first render: event name, date and the first photos, with at most 100 KB of gzipped JS, from this origin and the media host only', async () => {
    const scripts: Buffer[] = [];
    page.on('response', async (r) => {
      if (r.request().resourceType() === 'script') scripts.push(await r.body());
    });
    const response = await page.goto(pageUrl());
    expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
    await firstThumbnailShown(page);
    await expectText(page.locator('h1'), 'Demo City 10K');
    expect(await page.locator('.date').innerText()).toMatch(/^Sunday,? 17 May 2026$/);
    const jsGzipBytes = scripts.reduce((n, s) => n + gzipSync(s).length, 0);
    expect(jsGzipBytes).toBeLessThanOrEqual(100 * 1024);
    const all = expectSuccess(await api(`${base}/images?page=1&page_size=100`));
    await expectText(page.locator('.results .count'), `${all.pagination.total} photos`);
    expect(await tileCount()).toBe(all.pagination.total);
    const media = new URL(all.images[0].thumbnail_url).origin;
    expect([...requestedOrigins].sort()).toEqual([media, pageOrigin].sort());
    await state('1-all-photos');
  });

  it('the lightbox: large preview with the capture time in the event zone; arrows, swipes and Escape', async () => {
    await page.locator('.grid .thumb').first().click();
    const dialog = page.getByRole('dialog');
    await expectAttribute(dialog, 'aria-label', /^Photo 1 of \d+$/);
    await expectText(dialog.locator('.taken'), /Taken at \d\d:\d\d:\d\d UTC/);
    await state('2-lightbox', page, false);
    await page.keyboard.press('ArrowRight');
    await expectAttribute(dialog, 'aria-label', /^Photo 2 of/);
    const swipe = (fromX: number, toX: number) =>
      page.locator('.lightbox').evaluate(
        (el, [a, b]) => {
          const touch = (x: number) => new Touch({ identifier: 1, target: el, clientX: x, clientY: 300 });
          el.dispatchEvent(
            new TouchEvent('touchstart', { touches: [touch(a)], changedTouches: [touch(a)], bubbles: true }),
          );
          el.dispatchEvent(new TouchEvent('touchend', { touches: [], changedTouches: [touch(b)], bubbles: true }));
        },
        [fromX, toX],
      );
    await swipe(300, 60);
    await expectAttribute(dialog, 'aria-label', /^Photo 3 of/);
    await swipe(60, 300);
    await expectAttribute(dialog, 'aria-label', /^Photo 2 of/);
    await page.keyboard.press('Escape');
    await expectCount(dialog, 0);
  });

  it('finds the photos of BIB 1207', async () => {
    await page.getByLabel('BIB number', { exact: true }).fill('1207');
    await page.getByLabel('Search by BIB').getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByRole('heading', { name: 'Photos with BIB 1207' }).first().waitFor();
    expect(new URL(page.url()).searchParams.get('bib')).toBe('1207');
    const byApi = expectSuccess(await api(`${base}/bibs/1207?page_size=100`));
    expect(byApi.images.length).toBeGreaterThan(0);
    await expectCount(page.locator('.grid .tile'), byApi.images.length);
    expect(await thumbnails()).toEqual(byApi.images.map((i: any) => i.thumbnail_url));
    await state('3-bib-1207');
  });

  it('downloads the originals of the result: progress, then links that fetch the originals', async () => {
    await page.getByRole('button', { name: /^Download all/ }).click();
    await expectText(page.locator('.downloads [role=status]'), /photo is downloading|photos are downloading/, 30_000);
    await expectAttribute(page.locator('.downloads progress'), 'value', /[1-9]/);
    await page.locator('.files summary').click();
    const href = await page.locator('a.file-link').first().getAttribute('href');
    const original = await fetch(href!);
    expect(original.status).toBe(200);
    expect(original.headers.get('content-disposition')).toContain('finish-line-1207.jpg');
    const meta = await sharp(Buffer.from(await original.arrayBuffer())).metadata();
    expect({ width: meta.width, height: meta.height }).toEqual({ width: 1800, height: 1200 });
    await state('4-download');
  });

  let requestId = '';
  it('finds the photos of the demo selfie; the reloaded link shows the same result without a new (billed) search', async () => {
    const before = await faceSearchRows();
    await page.getByLabel('Selfie', { exact: true }).setInputFiles(info.demo.selfieFile!);
    await page.getByRole('heading', { name: 'Photos of you' }).first().waitFor({ timeout: 60_000 });
    requestId = new URL(page.url()).searchParams.get('selfie')!;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const byApi = expectSuccess(await api(`${base}/faces/${requestId}?page_size=100`));
    expect(byApi.images.length).toBeGreaterThan(0);
    await expectCount(page.locator('.grid .tile'), byApi.images.length);
    const shown = await thumbnails();
    expect(await faceSearchRows()).toBe(before + 1);
    const [billing] = await sql(
      'select billable, cache_hits from face_searches where event_id = $1 and request_id = $2',
      [eventId, requestId],
    );
    await state('5-selfie');

    await page.reload();
    await page.getByRole('heading', { name: 'Photos of you' }).first().waitFor();
    await expectCount(page.locator('.grid .tile'), byApi.images.length);
    expect(await thumbnails()).toEqual(shown);
    expect(await faceSearchRows()).toBe(before + 1);
    expect(
      (
        await sql('select billable, cache_hits from face_searches where event_id = $1 and request_id = $2', [
          eventId,
          requestId,
        ])
      )[0],
    ).toEqual(billing);
  }, 120_000);

  /** Chooses a selfie on the page: the image that left the browser (read where its request is routed) and the search it made. */
  const chooseSelfie = async (file: string): Promise<{ sent: Buffer; searched: string }> => {
    const bodies: Buffer[] = [];
    await page.route('**/faces?**', async (route) => {
      if (route.request().method() === 'POST') bodies.push(route.request().postDataBuffer()!);
      await route.continue();
    });
    try {
      await page.getByLabel('Selfie', { exact: true }).setInputFiles(file);
      await page.waitForURL(new RegExp(`selfie=(?!${requestId})`), { timeout: 60_000 });
      await page.getByRole('heading', { name: 'Photos of you' }).first().waitFor({ timeout: 60_000 });
    } finally {
      await page.unroute('**/faces?**');
    }
    expect(bodies).toHaveLength(1);
    const [body] = bodies;
    // The form's file part: its bytes run from after its headers to the next boundary.
    const start = body.indexOf('\r\n\r\n', body.indexOf('name="file"')) + 4;
    const sent = body.subarray(start, body.indexOf('\r\n--', start));
    return { sent, searched: new URL(page.url()).searchParams.get('selfie')! };
  };
  const found = async (id: string) =>
    (expectSuccess(await api(`${base}/faces/${id}?page_size=100`)).images as Array<{ image_id: string }>)
      .map((i) => i.image_id)
      .sort();

  it('sends a phone photo small and upright: 1600 px, no metadata, and it finds what the demo selfie finds', async () => {
    // A 12 MP phone photo of the demo selfie's face, stored sideways with EXIF orientation 6 as phones write them.
    const face = await sharp(info.demo.selfieFile!).resize({ height: 1800 }).toBuffer();
    const upright = await sharp({
      create: {
        width: 4032,
        height: 3024,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .composite([{ input: face, gravity: 'centre' }])
      .jpeg()
      .toBuffer();
    const phonePhoto = path.join(OUT, 'phone-selfie.jpg');
    await sharp(upright).rotate(270).withMetadata({ orientation: 6 }).jpeg({ quality: 92 }).toFile(phonePhoto);
    const chosenBytes = statSync(phonePhoto).size;

    try {
      const { sent, searched } = await chooseSelfie(phonePhoto);
      const meta = await sharp(sent).metadata();
      expect({ width: meta.width, height: meta.height, orientation: meta.orientation, exif: meta.exif }).toEqual({
        width: 1600,
        height: 1200,
        orientation: undefined,
        exif: undefined,
      });
      expect(sent.length).toBeLessThan(chosenBytes / 4);
      expect(await found(searched)).toEqual(await found(requestId));
      await state('5b-phone-selfie');
    } finally {
      // The next test waits for a selfie other than the demo's: it starts from the demo's result.
      await open(pageUrl(`?selfie=${requestId}`));
    }
  }, 120_000);

  it('takes a selfie in a format the contract does not name (WebP): sent as a JPEG, it finds what the demo selfie finds', async () => {
    const webp = path.join(OUT, 'selfie.webp');
    await sharp(info.demo.selfieFile!).webp({ quality: 90 }).toFile(webp);
    try {
      const { sent, searched } = await chooseSelfie(webp);
      expect((await sharp(sent).metadata()).format).toBe('jpeg');
      expect(await found(searched)).toEqual(await found(requestId));
    } finally {
      await open(pageUrl(`?selfie=${requestId}`));
    }
  }, 120_000);

  it('my video moments: from a selfie result, clips are asked for, polled until completed, then played inline and offered for download', async () => {
    // The demo video shows the people of the last sample photos: a selfie of one of them, once the video is indexed.
    const indexed = await settle(
      async () =>
        (await sql('select status from videos where event_id = $1', [eventId])).map((r: any) => r.status).join(),
      (v) => v === 'indexed',
      120_000,
    );
    expect(indexed).toBe('indexed');
    const selfie = path.join(OUT, 'video-selfie.jpg');
    await sharp(await faceCrop('sample6.jpg')).toFile(selfie);
    await page.getByLabel('Selfie', { exact: true }).setInputFiles(selfie);
    await page.waitForURL(new RegExp(`selfie=(?!${requestId})`), { timeout: 60_000 });
    await page.getByRole('button', { name: 'Find my video moments' }).click();
    await expectText(page.locator('.moments [role=status]').first(), /Cutting your video moments|ready/);
    const video = page.locator('.moments video').first();
    await video.first().waitFor({ timeout: 150_000 });
    await video.evaluate((v: any) => {
      v.muted = true;
      return v.play();
    });
    await page.waitForFunction(
      () => {
        const v = document.querySelector('.moments video');
        return !!v && v.readyState >= 2 && v.currentTime > 0.3;
      },
      undefined,
      { timeout: 30_000 },
    );
    const download = await page.getByRole('link', { name: /^Download video moment 1$/ }).getAttribute('href');
    const clip = await fetch(download!);
    expect(clip.status).toBe(200);
    expect(
      Buffer.from(await clip.arrayBuffer())
        .subarray(4, 8)
        .toString(),
    ).toBe('ftyp');
    await video.evaluate((v: any) => v.pause());
    await state('6-video-moments');
  }, 240_000);

  it('browses by time: choosing an hour of the strip shows exactly that window', async () => {
    await open(pageUrl());
    const days = expectSuccess(await api(`${base}/timeline/days`)).days;
    // The demo reads as one race: its sample photos (shot on other days) are stamped with the race morning.
    expect(days.map((d: any) => [d.date, d.hours.map((h: any) => h.hour)])).toEqual([['2026-05-17', [9, 10]]]);
    const day = days[0];
    const hour = day.hours[0];
    const strip = page.getByRole('navigation', { name: 'Browse by time' });
    if (days.length > 1) await strip.locator(`button[data-day="${day.date}"]`).click();
    await strip.getByRole('button', { name: new RegExp(`^${String(hour.hour).padStart(2, '0')}:00`) }).click();
    await page.waitForURL(new RegExp(`day=${day.date}&hour=${hour.hour}`));
    await expectText(page.locator('.results .count'), hour.count === 1 ? '1 photo' : `${hour.count} photos`);
    const from = Date.parse(`${day.date}T00:00:00Z`) / 1000 + hour.hour * 3600;
    const byApi = expectSuccess(await api(`${base}/timeline/images?from=${from}&to=${from + 3600}&page_size=100`));
    await expectCount(page.locator('.grid .tile'), byApi.images.length);
    expect(await thumbnails()).toEqual(byApi.images.map((i: any) => i.thumbnail_url));
    await expectAttribute(
      page.getByRole('button', { name: new RegExp(`^${String(hour.hour).padStart(2, '0')}:00`) }),
      'aria-pressed',
      'true',
    );
    await state('7-timeline');
  });

  it('a feature whose flag is off is not offered, and its old links say so in a sentence', async () => {
    await setFlags('selfie_search = false');
    try {
      await open(pageUrl());
      await expectText(page.locator('h1'), 'Demo City 10K');
      await page.getByLabel('BIB number', { exact: true }).first().waitFor();
      await expectCount(page.getByLabel('Selfie', { exact: true }), 0);
      await open(pageUrl(`?selfie=${requestId}`));
      await expectText(page.getByRole('alert'), 'Search by selfie is not available for this event.');
      await expectCount(page.getByText('My video moments'), 0);
      await state('8-selfie-flag-off');
    } finally {
      await setFlags('selfie_search = true');
    }
    await setFlags('bib_search = false');
    try {
      await open(pageUrl());
      await page.getByLabel('Selfie', { exact: true }).first().waitFor();
      await expectCount(page.getByLabel('BIB number', { exact: true }), 0);
    } finally {
      await setFlags('bib_search = true');
    }
  });

  it('API errors are human sentences: an unknown BIB, a refused key, a host outside the key’s allowlist', async () => {
    await open(pageUrl('?bib=99999'));
    await expectText(page.locator('.empty'), 'No photos with BIB 99999 yet. Check the number, or try a selfie.');
    await open(pageUrl('', 'em_not_a_real_key'));
    await expectText(
      page.getByRole('alert'),
      'This page is not allowed to show this event. Please ask the organiser for a new link.',
    );
    await state('9-error-refused-key');
    // The same link opened from a host the browser key does not allow (an IP never matches a hostname entry).
    await open(pageUrl().replace(pageOrigin, info.restUrl));
    await expectText(page.getByRole('alert'), /not allowed to show this event/);
    await open(`${pageOrigin}/events/${orgId}/${eventId}`);
    await page.evaluate(() => sessionStorage.clear());
    await page.reload();
    await expectText(
      page.getByRole('alert'),
      'This page link is missing its access key. Please open the link the organiser sent you.',
    );
  });

  it('the browser key reads and searches from its allowed host only, and cannot write (it is public by nature)', async () => {
    const fromPage = { key: browserKey, headers: { origin: pageOrigin } };
    expectSuccess(await api(`${base}/details`, fromPage));
    expectSuccess(await api(`${base}/bibs/1207`, fromPage));
    expectError(
      await api(`${base}/details`, { key: browserKey, headers: { origin: 'https://elsewhere.example' } }),
      403,
    );
    for (const stage of ['go-live', 'process']) {
      const res = await api(`${base}/pipeline/photos/${stage}`, { ...fromPage, method: 'POST' });
      expectError(res, 403);
      expect(res.body.message).toMatch(/read-only/);
    }
    expectError(await api(`${base}/pipeline/photos/status`, fromPage), 403);
    expectSuccess(await api(`${base}/pipeline/photos/status`));
  });

  it('phone and desktop screenshots for the README', async () => {
    await open(pageUrl('?bib=1207'));
    await page.locator('.grid .tile').first().waitFor();
    await state('10-phone');
    mkdirSync(DOCS_IMAGES, { recursive: true });
    await page.screenshot({ path: path.join(DOCS_IMAGES, 'participant-page-phone.png') });
    const desktop = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await desktop.goto(pageUrl());
      await desktop.waitForFunction(() => document.querySelectorAll('.grid img').length > 0);
      await state('11-desktop', desktop);
      await desktop.screenshot({ path: path.join(DOCS_IMAGES, 'participant-page-desktop.png') });
    } finally {
      await desktop.close();
    }
    copyFileSync(path.join(DOCS_IMAGES, 'participant-page-phone.png'), path.join(OUT, 'readme-phone.png'));
  });
});
