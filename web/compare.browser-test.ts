import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { type RunningServer, startServer } from './server.ts';
import { launchChromium, openPage } from './testing/chromium.ts';

// Two configurations over several seeds: `full` (score-based parent selection) climbs, `latest` barely.
const FULL = ['full-1', 'full-2', 'full-3', 'full-4', 'full-5'];
const LATEST = ['latest-1', 'latest-2', 'latest-3', 'latest-4', 'latest-5'];
const THREE = [...FULL.slice(0, 3), ...LATEST.slice(0, 3)];
const runs = mkdtempSync(path.join(tmpdir(), 'compare-runs-'));
let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  for (const [i, id] of FULL.entries())
    writeSyntheticRun(runs, { id, variants: 20, seed: 100 + i, lift: 0.02 });
  const latest = { lift: -0.005, config: { parentSelection: 'latest' } };
  for (const [i, id] of LATEST.entries())
    writeSyntheticRun(runs, { id, variants: 20, seed: 200 + i, ...latest });
  // Runs not to pool with full ones: one with half the generations, one stopped (Ctrl-C, budget, a control).
  writeSyntheticRun(runs, { id: 'latest-short', variants: 10, seed: 210, ...latest });
  writeSyntheticRun(runs, { id: 'full-stopped', variants: 20, seed: 110, lift: 0.02, status: 'stopped' });
  server = await startServer({ runsDir: runs });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(runs, { recursive: true, force: true });
});

const open = (query: string): Promise<Page> =>
  openPage(browser.context, `${server.url}/compare?${query}`, { view: 'compareRuns' });

/** Waits for the view drawn after a control changed its address. */
async function redrawn(page: Page, change: () => Promise<unknown>, url: RegExp): Promise<void> {
  await page.evaluate('document.body.removeAttribute("data-rendered")');
  await change();
  await page.waitForURL(url);
  await page.waitForSelector('body[data-rendered="compareRuns"]');
}

const text = async (page: Page, selector: string) => (await page.locator(selector).textContent()) ?? '';
const linkColor = (page: Page, run: string) =>
  page.locator(`#compare-runs a[href="/runs/${run}"]`).getAttribute('style');

describe('comparing two groups of runs', () => {
  it('leaves a short and a stopped run out by default, and counts them when the toggle includes them', async () => {
    const page = await open(`runs=${[...THREE, 'latest-short', 'full-stopped'].join(',')}`);
    expect(await text(page, '[data-run-flag="latest-short"]')).toMatch(
      /^left out · short: 10 of the 20 generations/,
    );
    expect(await text(page, '[data-run-flag="full-stopped"]')).toMatch(/^left out · stopped/);
    expect(await text(page, '[data-run-flag="full-1"]')).toBe('yes');
    expect(await text(page, '#compare-groups')).toMatch(
      /A: .*latest \(3 counted\).*B: .*score_child_prop \(3 counted\)/,
    );
    expect(await page.isChecked('#include-short')).toBe(false);
    expect(await text(page, 'label:has(#include-short)')).toContain('(2 flagged)');

    await redrawn(page, () => page.check('#include-short'), /short=include/);
    expect(await text(page, '[data-run-flag="latest-short"]')).toMatch(/^yes · short/);
    expect(await text(page, '#compare-groups')).toMatch(/\(4 counted\).*\(4 counted\)/);
    expect(await text(page, '#rank-test')).toMatch(/A \(4 runs\) vs B \(4 runs\)/);
    await page.close();
  });

  it('tests the direction chosen, whatever order the runs were ticked in, with colours fixed per group', async () => {
    const forward = await open(`runs=${THREE.join(',')}&test=b-better`);
    const backward = await open(`runs=${[...THREE].reverse().join(',')}&test=b-better`);
    for (const page of [forward, backward]) {
      // B (the full runs) ends higher in every seed: the exact one-sided p of 3 vs 3 is 1/20.
      expect(await text(page, '#rank-test')).toMatch(/p = 0\.0500 \(exact\)$/);
      expect(await linkColor(page, 'full-1')).toBe('color:#d62728');
      expect(await linkColor(page, 'latest-1')).toBe('color:#1f77b4');
    }
    await redrawn(forward, () => forward.selectOption('#test-direction', 'a-better'), /test=a-better/);
    expect(await text(forward, '#rank-test')).toMatch(/p = 1\.0000 \(exact\)$/);
    await redrawn(forward, () => forward.selectOption('#test-direction', 'two-sided'), /test=two-sided/);
    expect(await text(forward, '#rank-test')).toMatch(/p = 0\.1000 \(exact\)$/);
    await forward.close();
    await backward.close();
  });

  it('warns when the groups are too small to separate, and not at five runs each', async () => {
    const small = await open(`runs=${THREE.join(',')}`);
    expect(await text(small, '#small-groups')).toMatch(
      /^Groups of 3 and 3 runs are too small to separate: the smallest p this test can give is 0\.1000 .*cannot tell a small or moderate one from noise/,
    );
    const enough = await open(`runs=${[...FULL, ...LATEST].join(',')}`);
    expect(await enough.locator('#small-groups').count()).toBe(0);
    expect(await text(enough, '#rank-test')).toMatch(/A \(5 runs\) vs B \(5 runs\)/);
    await small.close();
    await enough.close();
  });

  it("shows each group's median and runs' values at the generation pointed at", async () => {
    const page = await open(`runs=${THREE.join(',')}`);
    expect(await text(page, '#compare-hover')).toMatch(/^Point at the chart/);
    const box = (await page.locator('#compare-chart .u-over').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    expect(await text(page, '#compare-hover')).toMatch(
      /^generation \d+ · A: median \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\] \(latest-1 \d\.\d{3}, .*\) · B: median \d\.\d{3} .*full-1 \d\.\d{3}/,
    );
    await page.close();
  });

  it('keeps groups, toggles and direction in the address: a link reproduces the view, back undoes a change', async () => {
    const page = await open(`runs=${[...THREE, 'latest-short'].join(',')}`);
    // Swap the groups by a filter on the run names, one run by its own control, include short runs, pick a direction.
    await page.fill('#group-filter', 'full');
    await redrawn(page, () => page.click('#filter-to-a'), /a=[^&]*full-1/);
    await page.fill('#group-filter', 'latest');
    await redrawn(page, () => page.click('#filter-to-b'), /b=latest-1/);
    await redrawn(
      page,
      () => page.selectOption('[data-group-run="latest-3"]', ''),
      /b=latest-1%2Clatest-2%2Clatest-short|b=latest-1,latest-2,latest-short/,
    );
    await redrawn(page, () => page.check('#include-short'), /short=include/);
    await redrawn(page, () => page.selectOption('#test-direction', 'a-better'), /test=a-better/);
    const view = async (p: Page) => [
      await text(p, '#compare-groups'),
      await text(p, '#compare-runs'),
      await text(p, '#rank-test'),
      await p.isChecked('#include-short'),
      await p.inputValue('#test-direction'),
    ];
    const shown = await view(page);
    expect(shown[0]).toMatch(/A: .*score_child_prop \(3 counted\).*B: .*latest \(3 counted\)/);
    expect(shown[2]).toMatch(/p = 0\.0500 \(exact\)$/);
    const again = await open(page.url().split('?')[1]!);
    expect(await view(again)).toEqual(shown);

    await redrawn(page, () => page.goBack(), /^((?!test=).)*$/);
    expect(await page.inputValue('#test-direction')).toBe('two-sided');
    expect(await page.isChecked('#include-short')).toBe(true);
    await redrawn(page, () => page.goForward(), /test=a-better/);
    expect(await page.inputValue('#test-direction')).toBe('a-better');
    await page.close();
    await again.close();
  });
});
