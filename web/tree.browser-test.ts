import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { type RunningServer, startServer } from './server.ts';
import { launchChromium } from './testing/chromium.ts';

const runs = mkdtempSync(path.join(tmpdir(), 'browser-tree-'));
let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

/** Where the tree's view and some of its nodes are on the screen, read in the page. */
interface Placed {
  view: { left: number; right: number; top: number; bottom: number };
  nodes: { id: number; left: number; right: number; top: number; bottom: number; label: boolean }[];
  scale: number;
}

const placed = (page: Page, selector: string): Promise<Placed> =>
  page.evaluate(`(() => {
    const box = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
    const nodes = [...document.querySelectorAll(${JSON.stringify(selector)})].map((a) => {
      const label = a.querySelector('text');
      return { id: Number(a.dataset.variant), ...box(a.querySelector('.node-shape')),
        label: !!label && getComputedStyle(label).display !== 'none' };
    });
    return { view: box(document.getElementById('tree-view')), nodes, scale: Number(document.getElementById('tree').dataset.scale) };
  })()`) as Promise<Placed>;

const inside = (n: Placed['nodes'][number], v: Placed['view']) =>
  n.left >= v.left - 1 && n.right <= v.right + 1 && n.top >= v.top - 1 && n.bottom <= v.bottom + 1;

beforeAll(async () => {
  // A big run written directly through the archive API: 1,000 variants, with rejected and failed ones.
  writeSyntheticRun(runs, { id: 'big', variants: 1000, seed: 5 });
  server = await startServer({ runsDir: runs });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(runs, { recursive: true, force: true });
});

describe('the lineage tree of a 1,000-variant run, in headless Chromium', () => {
  it('opens quickly with the root and the best lineage in view and readable, fits, zooms, pans', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/runs/big`);
    await page.waitForSelector('body[data-rendered="run"] #tree svg');
    expect(errors).toEqual([]);
    // Loose bounds that still catch a tree gone quadratic: this shares a busy 2-core machine with other
    // work (npm run bench -- archive-browser measures the first render on a quiet one).
    expect(Number(await page.getAttribute('body', 'data-first-render-ms'))).toBeLessThan(30_000);
    expect(await page.locator('#tree a.node').count()).toBe(1000);
    // Drawing the tree again (laid out, every node made) twice, as collapsing and expanding do.
    const redrawMs = Number(
      await page.evaluate(`(() => {
        const t = performance.now();
        const c = document.getElementById('tree-collapse');
        c.click();
        c.click();
        return performance.now() - t;
      })()`),
    );
    expect(redrawMs).toBeLessThan(5000);

    // The root and every variant of the best lineage are on screen, at a size one can read, with their ids.
    const opened = await placed(page, '#tree a.node:has(.on-best), #tree a.node[data-variant="0"]');
    expect(opened.nodes.length).toBeGreaterThan(3);
    for (const n of opened.nodes) expect(inside(n, opened.view), `variant ${n.id} in view`).toBe(true);
    for (const n of opened.nodes) expect(n.right - n.left).toBeGreaterThanOrEqual(6);
    expect(opened.nodes.every((n) => n.label)).toBe(true);
    // Nothing sticks out of the page sideways: the tree stays in its box.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);

    // Fit shows all 1,000; zooming in and out changes the scale; a drag moves the view.
    await page.click('#tree-fit');
    const all = await placed(page, '#tree a.node');
    expect(all.nodes.filter((n) => inside(n, all.view))).toHaveLength(1000);
    await page.click('#tree-zoom-in');
    const closer = Number(await page.getAttribute('#tree', 'data-scale'));
    expect(closer).toBeCloseTo(all.scale * 1.5, 2);
    await page.click('#tree-zoom-out');
    expect(Number(await page.getAttribute('#tree', 'data-scale'))).toBeCloseTo(all.scale, 2);
    await page.click('#tree-best');
    await page.locator('#tree-view').scrollIntoViewIfNeeded();
    const beforeDrag = await placed(page, '#tree a.node[data-variant="0"]');
    const before = beforeDrag.nodes[0]!;
    const v = beforeDrag.view;
    await page.mouse.move(v.left + 100, v.top + 100);
    await page.mouse.down();
    await page.mouse.move(v.left + 180, v.top + 140, { steps: 5 });
    await page.mouse.up();
    const after = (await placed(page, '#tree a.node[data-variant="0"]')).nodes[0]!;
    expect(after.left - before.left).toBeCloseTo(80, 0);
    expect(after.top - before.top).toBeCloseTo(40, 0);
    expect(page.url()).toBe(`${server.url}/runs/big`);
  }, 300_000);

  it('finds a variant by id and previews it beside the tree; collapses rejected and failed leaves', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/runs/big`);
    await page.waitForSelector('#tree svg');
    await page.fill('#tree-find', '777');
    await page.press('#tree-find', 'Enter');
    const found = await placed(page, '#tree a.node.found');
    expect(found.nodes.map((n) => n.id)).toEqual([777]);
    expect(inside(found.nodes[0]!, found.view)).toBe(true);
    expect(await page.textContent('#tree-preview h3')).toContain('Variant 777');
    expect(await page.getAttribute('#tree-preview a', 'href')).toBe('/runs/big/variants/777');
    await page.fill('#tree-find', '5000');
    await page.press('#tree-find', 'Enter');
    expect(await page.textContent('#tree-found')).toBe('No variant 5000 in this run.');

    // Pointing at a node previews it.
    await page.click('#tree-best');
    await page.hover('#tree a.node[data-variant="0"]');
    expect(await page.textContent('#tree-preview h3')).toContain('Variant 0');

    await page.check('#tree-collapse');
    const left = await page.locator('#tree a.node').count();
    expect(left).toBeLessThan(1000);
    expect(await page.textContent('#tree-found')).toBe(`${1000 - left} rejected or failed leaves collapsed`);
    expect(await page.locator('#tree a.node:has(rect.rejected)').count()).toBeLessThan(
      await page.locator('#tree a.node').count(),
    );
    await page.uncheck('#tree-collapse');
    expect(await page.locator('#tree a.node').count()).toBe(1000);
  }, 300_000);
});
