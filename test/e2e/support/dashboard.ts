import { Browser, BrowserContext, BrowserContextOptions, chromium, Page } from 'playwright-core';
import { ensureChromium } from './browser';
import { readPlatformInfo, spawnPlatform, SpawnedPlatform } from './spawn-platform';

export type DashboardPlatformInfo = ReturnType<typeof readPlatformInfo> & { demo: { organiserPassword: string } };

/** A platform of a test file's own with Debian's chromium open on its dashboard. */
export interface DashboardRig {
  platform: SpawnedPlatform;
  info: DashboardPlatformInfo;
  /** The dashboard by `localhost` (the name the demo's allowlists and cookies expect), ending in `/dashboard/`. */
  dashboardUrl: string;
  browser: Browser;
  /** A desktop context (1280 px) and its page. */
  context: BrowserContext;
  page: Page;
  stop(): Promise<void>;
}

/**
 * Spawns a platform (no identity provider configured: the embedded OpenID provider runs) and opens
 * chromium on it; `signInAs` signs that account in on the page first.
 */
export async function openDashboard(opts: {
  prefix: string;
  env?: Record<string, string>;
  contextOptions?: BrowserContextOptions;
  signInAs?: 'demo organiser';
}): Promise<DashboardRig> {
  const platform = await spawnPlatform({ prefix: opts.prefix, env: opts.env });
  const info = readPlatformInfo(platform) as DashboardPlatformInfo;
  const dashboardUrl = `${info.restUrl.replace('127.0.0.1', 'localhost')}/dashboard/`;
  const browser = await chromium.launch({ executablePath: ensureChromium(), args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, ...opts.contextOptions });
  const page = await context.newPage();
  if (opts.signInAs) await signIn(page, dashboardUrl, 'organiser@demo.example', info.demo.organiserPassword);
  return {
    platform,
    info,
    dashboardUrl,
    browser,
    context,
    page,
    async stop() {
      await browser.close();
      await platform.stop();
    },
  };
}

/** Signs an account in at the embedded provider from the dashboard, back on the events page. */
export async function signIn(page: Page, dashboardUrl: string, email: string, password: string): Promise<void> {
  await page.goto(dashboardUrl);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/interaction\//);
  await page.locator('#email').fill(email);
  await page.locator('#password').fill(password);
  await page.locator('button[type=submit]').click();
  await page.waitForURL(/\/dashboard\/(events)?$/);
}
