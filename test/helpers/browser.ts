/**
 * Real headless Chromium for the explorer's tests: Debian's `chromium` (.ci/run installs
 * it) driven by playwright-core, with SwiftShader so WebGL runs without a GPU. Each page
 * records its console errors, uncaught errors and Content-Security-Policy violations, so a
 * test can assert the page met none.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, launchChromium } from '../../bench/lib/explorer-page.js';

export { launchChromium };

// The functions passed to the page run there: its globals.
declare const document: any;
declare const window: any;

/** The `skip` option of a test that needs Chromium. */
export function chromiumSkip(): false | string {
  try {
    accessSync(CHROMIUM, constants.X_OK);
    return false;
  } catch {
    return `${CHROMIUM} is not installed (.ci/run installs Debian's chromium)`;
  }
}

export interface WatchedPage {
  readonly page: Page;
  /** Console errors, uncaught exceptions and CSP violations seen so far. */
  readonly problems: string[];
}

/** A new page (its own context: fresh local and session storage) that records its problems. */
export async function openPage(browser: Browser, url: string): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.setDefaultTimeout(60_000);
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  await page.exposeFunction('__reportViolation', (text: string) => problems.push(`CSP: ${text}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e: any) => {
      window.__reportViolation(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  await page.goto(url);
  await page.waitForFunction(() => window.__trellisExplorer !== undefined);
  await page.evaluate(() => window.__trellisExplorer.ready);
  return { page, problems };
}

/**
 * Where screenshots go: docs/explorer/ when UPDATE_SCREENSHOTS=1 (to refresh the
 * documentation's pictures), else dist/screenshots/ (looked at, never committed).
 */
export function screenshotPath(name: string): string {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const dir = process.env.UPDATE_SCREENSHOTS === '1' ? join(root, 'docs', 'explorer') : join(root, 'dist', 'screenshots');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

/** Replaces the editor's text (CodeMirror, inside its shadow root) as a user would. */
export async function typeQuery(page: Page, text: string): Promise<void> {
  await page.click('[data-testid=editor] .cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
  // Typing may open the completion list: closed, as a user who is done typing would.
  await page.keyboard.press('Escape');
}
