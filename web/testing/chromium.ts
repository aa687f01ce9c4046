import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** The system Chromium (Debian's `chromium` package); playwright-core never downloads a browser here. */
export const CHROMIUM = process.env.HYPERAGENTS_CHROMIUM ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Headless Chromium with a fresh profile folder, removed again on close. */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(path.join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Opens `url` in a new page of `context` and waits until the page says it drew a view (`view`: that one);
 * a script error on the page fails the test. `width` sets the window (900 px high unless `height` says).
 */
export async function openPage(
  context: BrowserContext,
  url: string,
  options: { view?: string; width?: number; height?: number } = {},
): Promise<Page> {
  const page = await context.newPage();
  if (options.width !== undefined)
    await page.setViewportSize({ width: options.width, height: options.height ?? 900 });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForSelector(
    options.view === undefined ? 'body[data-rendered]' : `body[data-rendered="${options.view}"]`,
  );
  if (errors.length > 0) throw new Error(`${url} threw: ${errors.join('; ')}`);
  return page;
}
