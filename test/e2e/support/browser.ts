import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';

// Browser globals of the functions evaluated in the page (the test program has no DOM types).
declare const document: any, window: any;

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Debian's chromium for the page tests (playwright-core downloads no browser): installed with apt-get
 * when missing and we are root, the way the launcher installs redis-server.
 */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get'))
    throw new Error(
      `chromium not found at ${CHROMIUM}: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH`,
    );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
  if (!existsSync(CHROMIUM)) throw new Error('apt-get installed chromium but it is not at /usr/bin/chromium');
  return CHROMIUM;
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core on the page as it is now; the serious and critical violations. It is evaluated through
 * the DevTools protocol, which the page's CSP does not govern (the CSP itself stays on).
 */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations: AxeViolation[] = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n: any) => n.target.join(' ')).slice(0, 5),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Reads until the value matches (the page updates on its own), then returns the last value read. */
export async function settle<T>(read: () => Promise<T>, matches: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!matches(value) && Date.now() < deadline) {
    await pause(100);
    value = await read();
  }
  return value;
}
const fits = (expected: string | RegExp) => (v: string | null) =>
  v !== null && (typeof expected === 'string' ? v.trim() === expected : expected.test(v));
export async function expectText(locator: Locator, expected: string | RegExp, timeoutMs?: number) {
  const text = await settle(
    async () => ((await locator.count()) ? ((await locator.first().textContent()) ?? '') : null),
    fits(expected),
    timeoutMs,
  );
  if (typeof expected === 'string') expect(text?.trim()).toBe(expected);
  else expect(text).toMatch(expected);
}
export async function expectAttribute(locator: Locator, name: string, expected: string | RegExp) {
  const value = await settle(
    async () => ((await locator.count()) ? await locator.first().getAttribute(name) : null),
    fits(expected),
  );
  if (typeof expected === 'string') expect(value).toBe(expected);
  else expect(value).toMatch(expected);
}
export async function expectCount(locator: Locator, n: number) {
  expect(
    await settle(
      () => locator.count(),
      (c) => c === n,
    ),
  ).toBe(n);
}

/** Waits until the page shows its heading and its first thumbnail, decoded. */
export async function firstThumbnailShown(p: Page): Promise<void> {
  await p.waitForFunction(
    () => {
      const img = document.querySelector('.grid img');
      return !!document.querySelector('h1') && !!img && img.complete && img.naturalWidth > 0;
    },
    undefined,
    { polling: 'raf' },
  );
}
