import { Page } from 'playwright-core';
import { chromiumMissing, startPagePlatform, timedVisits, visitFigures, VISITS } from './participant-page';
import { BenchRow } from './table';

// Browser globals of the function evaluated in the page (this program has no DOM types).
declare const document: any, performance: any;

const ORGANISER = 'organiser@demo.example';

/**
 * The dashboard's events page as an organiser meets it after signing in: Debian's chromium at desktop
 * width, a fresh browser context per visit holding only the session cookie (nothing cached), against
 * `npm start`'s platform and demo. From navigation to the events table with the demo event's photo count.
 */
export async function dashboardPageBench(rows: BenchRow[]): Promise<void> {
  if (chromiumMissing(rows, 'dashboard events page first render')) return;
  const { platform, browser, stop } = await startPagePlatform();
  try {
    const dashboard = `${platform.restUrl.replace('127.0.0.1', 'localhost')}/dashboard/`;
    const signedIn = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await signedIn.newPage();
    await page.goto(dashboard);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/interaction\//);
    await page.locator('#email').fill(ORGANISER);
    await page.locator('#password').fill(platform.demo!.organiserPassword!);
    await page.locator('button[type=submit]').click();
    await page.waitForURL(/\/dashboard\/(events)?$/);
    const session = await signedIn.storageState();
    await signedIn.close();

    const { first, visits, jsKb } = await timedVisits(
      browser,
      { viewport: { width: 1280, height: 860 }, storageState: session },
      async (page) => {
        await page.goto(`${dashboard}events`);
        return eventsShown(page);
      },
    );
    rows.push({
      figure: 'dashboard events page first render',
      value: `${visitFigures(visits, first, 'first visit')}; JS ${jsKb.toFixed(1)} KB gzipped`,
      target: '< 1 s (median); JS <= 150 KB gzipped',
      how: `Debian chromium (playwright-core), 1280 px, signed in once at the embedded provider, then ${VISITS} fresh browser contexts with only the session cookie; from navigation to the events table with the demo event's photo count (performance.now() in the page)`,
    });
  } finally {
    await stop();
  }
}

/** Milliseconds from navigation until an event row shows its photo count (its GraphQL answers are in). */
async function eventsShown(page: Page): Promise<number> {
  await page.waitForFunction(
    () => {
      const cell = document.querySelector('tbody tr td[data-label="Photos"]');
      return !!cell && /^\d+ \(\d+\)$/.test(cell.textContent.trim());
    },
    undefined,
    { polling: 'raf' },
  );
  return page.evaluate(() => performance.now() as number);
}
