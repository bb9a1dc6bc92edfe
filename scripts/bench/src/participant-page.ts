import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Browser, BrowserContextOptions, chromium, Page } from 'playwright-core';
import { startPlatform } from '@em/platform';
import { freePlatformPorts } from './platform-ports';
import { BenchRow } from './table';

// Browser globals of the function evaluated in the page (this program has no DOM types).
declare const document: any, performance: any;

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
/** Timed visits after the first one (the median of 7). */
export const VISITS = 7;

/**
 * The participant page's first meaningful render (event name and the first thumbnail decoded) as a
 * participant meets it: Debian's chromium at 360 px with nothing cached, against `npm start`'s
 * platform and demo event, the server having served before. The median and best of several fresh
 * visits, and the first visit after the platform started; the JS the page loads, gzipped.
 */
export async function participantPageBench(rows: BenchRow[]): Promise<void> {
  if (chromiumMissing(rows, 'participant page first render')) return;
  const { platform, browser, stop } = await startPagePlatform();
  try {
    const demo = platform.demo!;
    // The demo browser key's allowlist holds `localhost`: the page is opened by that name.
    const url = `${platform.restUrl.replace('127.0.0.1', 'localhost')}/events/${demo.orgId}/${demo.eventId}#key=${encodeURIComponent(demo.browserKey!)}`;
    const { first, visits, jsKb } = await timedVisits(
      browser,
      { viewport: { width: 360, height: 780 }, isMobile: true, hasTouch: true },
      async (page) => {
        await page.goto(url);
        return firstMeaningfulRender(page);
      },
    );
    rows.push({
      figure: 'participant page first render',
      value: `${visitFigures(visits, first, 'first visit after start')}; JS ${jsKb.toFixed(1)} KB gzipped`,
      target: '< 1 s (median); JS <= 100 KB gzipped',
      how: `Debian chromium (playwright-core), 360 px, a fresh browser context per visit (nothing cached), ${VISITS} visits to the demo event of npm start's platform; from navigation to the heading shown and the first thumbnail decoded (performance.now() in the page)`,
    });
  } finally {
    await stop();
  }
}

/**
 * A page visited once (the first visit, its scripts kept) then VISITS times more, each in a fresh browser
 * context (nothing cached); `visit` opens the page and answers the milliseconds it measured in it.
 * The visits' times sorted, the first visit's, and the JS the first visit loaded, gzipped in KB.
 */
export async function timedVisits(
  browser: Browser,
  contextOptions: BrowserContextOptions,
  visit: (page: Page) => Promise<number>,
): Promise<{ first: number; visits: number[]; jsKb: number }> {
  const scripts: Buffer[] = [];
  const once = async (collectScripts: boolean) => {
    const context = await browser.newContext(contextOptions);
    const page = await context.newPage();
    if (collectScripts)
      page.on('response', async (r) => void (r.request().resourceType() === 'script' && scripts.push(await r.body())));
    const ms = await visit(page);
    await context.close();
    return ms;
  };
  const first = await once(true);
  const visits: number[] = [];
  for (let i = 0; i < VISITS; i++) visits.push(await once(false));
  return { first, visits: visits.sort((a, b) => a - b), jsKb: gzippedKb(scripts) };
}

/** `median M ms, best B ms, worst W ms; <firstLabel> F ms` of sorted visit times. */
export const visitFigures = (visits: number[], first: number, firstLabel: string) =>
  `median ${visits[visits.length >> 1].toFixed(0)} ms, best ${visits[0].toFixed(0)} ms, ` +
  `worst ${visits[visits.length - 1].toFixed(0)} ms; ${firstLabel} ${first.toFixed(0)} ms`;

/** `npm start`'s platform with its demo (production mode, quiet) on free ports, and Debian's chromium. */
export async function startPagePlatform() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'em-bench-page-'));
  const ports = await freePlatformPorts();
  const platform = await startPlatform({
    dataDir,
    ports,
    extraEnv: { NODE_ENV: 'production', LOG_LEVEL: 'warn' },
    log: () => undefined,
    onServiceOutput: () => undefined,
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const stop = async () => {
    await browser.close();
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { platform, browser, stop };
}

/** Without chromium, a page's row says so (true) instead of a figure. */
export function chromiumMissing(rows: BenchRow[], figure: string): boolean {
  if (existsSync(CHROMIUM)) return false;
  rows.push({
    figure,
    value: `not measured: no chromium at ${CHROMIUM}`,
    target: '< 1 s',
    how: 'apt-get install chromium, or set CHROMIUM_PATH',
  });
  return true;
}

/** The JS a page loaded, gzipped, in KB. */
export const gzippedKb = (scripts: Buffer[]) => scripts.reduce((n, s) => n + gzipSync(s).length, 0) / 1024;

/** Milliseconds from navigation until the heading is there and the first thumbnail is decoded. */
async function firstMeaningfulRender(page: Page): Promise<number> {
  await page.waitForFunction(
    () => {
      const img = document.querySelector('.grid img');
      return !!document.querySelector('h1') && !!img && img.complete && img.naturalWidth > 0;
    },
    undefined,
    { polling: 'raf' },
  );
  return page.evaluate(() => performance.now() as number);
}
