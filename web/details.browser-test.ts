import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { type RunningServer, startServer } from './server.ts';
import { launchChromium, openPage } from './testing/chromium.ts';
import { contrast } from './testing/contrast.ts';

const runs = mkdtempSync(path.join(tmpdir(), 'browser-details-'));
let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

const open = (url: string, width = 1280): Promise<Page> =>
  openPage(browser.context, url, { width, height: 800 });

beforeAll(async () => {
  writeSyntheticRun(runs, { id: 'alpha', variants: 30, seed: 3 });
  writeSyntheticRun(runs, { id: 'beta', variants: 30, seed: 4 });
  server = await startServer({ runsDir: runs });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(runs, { recursive: true, force: true });
});

describe('the pages on a phone and for the eye, in headless Chromium', () => {
  it.each(['/', '/runs/alpha', '/runs/alpha/variants/2', '/compare?runs=alpha,beta', '/runs/nosuch'])(
    '%s does not overflow sideways at 390 px',
    async (route) => {
      const page = await open(`${server.url}${route}`, 390);
      const over = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
      expect(over).toBeLessThanOrEqual(0);
      await page.close();
    },
  );

  it('shows an unknown run as a page that says so and names the runs, with status 404', async () => {
    const page = await browser.context.newPage();
    const response = await page.goto(`${server.url}/runs/nosuch`);
    expect(response?.status()).toBe(404);
    expect(response?.headers()['content-type']).toContain('text/html');
    await page.waitForSelector('#error');
    expect(await page.textContent('#error')).toContain('no such run; runs: alpha, beta');
    expect(await page.locator('a[href="/"]').count()).toBeGreaterThan(0);
    await page.close();
  });

  it('draws muted text and diff line numbers at 4.5:1 contrast or more', async () => {
    const page = await open(`${server.url}/runs/alpha`);
    const colours = (await page.evaluate(`(() => {
      const muted = document.querySelector('.muted');
      const diff = document.createElement('div');
      diff.className = 'diff';
      diff.innerHTML = '<div class="d2h-code-linenumber">12</div><div class="d2h-code-side-linenumber">12</div>';
      document.body.appendChild(diff);
      const c = (el) => getComputedStyle(el).color;
      return { muted: c(muted), body: getComputedStyle(document.body).backgroundColor,
        line: c(diff.children[0]), side: c(diff.children[1]) };
    })()`)) as { muted: string; body: string; line: string; side: string };
    expect(contrast(colours.muted, colours.body)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(colours.line, 'rgb(255, 255, 255)')).toBeGreaterThanOrEqual(4.5);
    expect(contrast(colours.side, 'rgb(255, 255, 255)')).toBeGreaterThanOrEqual(4.5);
    await page.close();
  });

  it('fits its charts to the window when the window is resized', async () => {
    const page = await open(`${server.url}/runs/alpha`);
    const chartWidth = () =>
      page.evaluate(
        `document.querySelector('#score-chart .uplot').getBoundingClientRect().width`,
      ) as Promise<number>;
    const wide = await chartWidth();
    await page.setViewportSize({ width: 500, height: 800 });
    // A function, not a string: the page's CSP refuses to evaluate a string while the predicate is polled.
    await page.waitForFunction(() => {
      const { document } = globalThis as unknown as {
        document: { querySelector(s: string): { getBoundingClientRect(): { width: number } } | null };
      };
      return (document.querySelector('#score-chart .uplot')?.getBoundingClientRect().width ?? 500) < 500;
    });
    const narrow = await chartWidth();
    expect(narrow).toBeLessThan(wide);
    expect(
      await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
    ).toBeLessThanOrEqual(0);
    await page.close();
  });

  it("keeps a variant page's diff choice in its address, through a reload and a shared link", async () => {
    const page = await open(`${server.url}/runs/alpha/variants/7`);
    await page.selectOption('#diff-against', '3');
    await page.selectOption('#diff-layout', 'side');
    expect(new URL(page.url()).search).toBe('?against=3&diff=side');
    await page.reload();
    await page.waitForSelector('body[data-rendered="variant"]');
    expect(await page.inputValue('#diff-against')).toBe('3');
    expect(await page.inputValue('#diff-layout')).toBe('side');
    // Back to the parent and one column: the address is plain again.
    const parent = await page.evaluate(
      `[...document.querySelectorAll('#diff-against option')].find((o) => o.textContent.endsWith('parent')).value`,
    );
    await page.selectOption('#diff-against', String(parent));
    await page.selectOption('#diff-layout', 'line');
    expect(new URL(page.url()).search).toBe('');
    await page.close();
  });

  it('marks failed generations on the score chart, and a click on a point opens its variant', async () => {
    const page = await open(`${server.url}/runs/alpha`);
    expect(await page.textContent('#score-chart .u-legend')).toContain('failed or rejected');
    const data = (await (await fetch(`${server.url}/api/runs/alpha`)).json()) as {
      variants: { id: number; generation: number; outcome: string }[];
    };
    const last = Math.max(...data.variants.map((v) => v.generation));
    const failed = data.variants.find(
      (v) => v.generation > 0 && (v.outcome === 'failed' || v.outcome === 'rejected'),
    );
    expect(failed, 'the synthetic run has a failure').toBeDefined();
    await page.locator('#score-chart').scrollIntoViewIfNeeded();
    const over = (await page.evaluate(`(() => {
      const r = document.querySelector('#score-chart .u-over').getBoundingClientRect();
      return { left: r.left, top: r.top, width: r.width, height: r.height };
    })()`)) as { left: number; top: number; width: number; height: number };
    const x = over.left + (failed!.generation / last) * over.width;
    await page.mouse.move(x, over.top + over.height - 4);
    await Promise.all([
      page.waitForURL(`**/runs/alpha/variants/${failed!.id}`),
      page.mouse.click(x, over.top + over.height - 4),
    ]);
    await page.close();
  });
});
