import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  archiveFile,
  lineageOrder,
  openArchiveReader,
  type VariantRegressions,
  variantRegressions,
} from '../archive/index.ts';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { buildReport } from './report.ts';
import { type RunningServer, startServer } from './server.ts';
import { launchChromium } from './testing/chromium.ts';

const runs = mkdtempSync(path.join(tmpdir(), 'browser-grid-'));
let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
/** What `archive regressions` says of the run, and its graded variants in lineage order. */
let expected: VariantRegressions[] = [];
let columns: number[] = [];
let parents = new Map<number, number | null>();

beforeAll(async () => {
  // 226 tasks (113 a split) × 60 variants, each task's outcome drawn, so children break and fix tasks.
  const dir = writeSyntheticRun(runs, {
    id: 'grid',
    variants: 60,
    seed: 7,
    tasks: { perSplit: 113, drawn: true },
  });
  const reader = openArchiveReader(archiveFile(dir));
  const variants = reader.variants();
  expected = variantRegressions(variants, reader.taskOutcomes());
  reader.close();
  parents = new Map(variants.map((v) => [v.id, v.parent]));
  columns = lineageOrder(variants)
    .filter((v) => v.outcome === 'evaluated')
    .map((v) => v.id);
  server = await startServer({ runsDir: runs });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(runs, { recursive: true, force: true });
});

/** The grid as the reader sees it: column headers, and per row its task and each cell's text. */
const gridShown = (page: Page) =>
  page.evaluate(`(() => {
    const table = document.getElementById('task-grid');
    const heads = [...table.querySelectorAll('thead th[data-variant]')].map((th) => Number(th.dataset.variant));
    const rows = [...table.querySelectorAll('tbody tr')].map((tr) => ({
      task: tr.querySelector('th').textContent,
      cells: [...tr.querySelectorAll('td')].map((td) => td.textContent),
    }));
    return { heads, rows };
  })()`) as Promise<{ heads: number[]; rows: { task: string; cells: string[] }[] }>;

describe("a run's tasks × variants grid, 226 tasks × 60 variants, in headless Chromium", () => {
  it('shows every task and graded variant, parent before child, with the regressions and fixes of each', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/runs/grid`);
    await page.waitForSelector('#task-grid tbody tr');
    expect(errors).toEqual([]);
    const shown = await gridShown(page);
    expect(shown.heads).toEqual(columns);
    expect(columns.length).toBeGreaterThanOrEqual(45);
    expect(shown.rows.length).toBe(226);
    for (const [i, id] of shown.heads.entries()) {
      const parent = parents.get(id);
      if (parent != null) expect(shown.heads.indexOf(parent), `parent of ${id} before it`).toBeLessThan(i);
    }
    // Each variant's column marks exactly the tasks archive regressions lists for it.
    for (const r of expected) {
      const col = shown.heads.indexOf(r.variant);
      const marked = (marks: string[]) =>
        shown.rows.filter((row) => marks.includes(row.cells[col] ?? '')).map((row) => row.task);
      expect([r.variant, marked(['▼', '▼!']).sort()]).toEqual([r.variant, [...r.regressed].sort()]);
      expect([r.variant, marked(['▼!']).sort()]).toEqual([r.variant, [...r.rebroken].sort()]);
      expect([r.variant, marked(['▲']).sort()]).toEqual([r.variant, [...r.fixed].sort()]);
    }
    expect(expected.some((r) => r.rebroken.length > 0)).toBe(true);
    const regressed = expected.reduce((s, r) => s + r.regressed.length, 0);
    expect(await page.textContent('#regression-summary')).toContain(`${regressed} regressed of`);
    // The page itself does not scroll sideways: the grid scrolls in its box.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
  });

  it('keeps the variants and the tasks in view while the grid scrolls', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1000, height: 800 });
    await page.goto(`${server.url}/runs/grid`);
    await page.waitForSelector('#task-grid tbody tr');
    const after = (await page.evaluate(`(() => {
      const box = document.getElementById('task-grid-box');
      box.scrollTop = 2000;
      box.scrollLeft = 600;
      const top = box.getBoundingClientRect();
      const head = document.querySelector('#task-grid thead th[data-variant]').getBoundingClientRect();
      const task = document.querySelector('#task-grid tbody tr:nth-child(100) th').getBoundingClientRect();
      return { scrolled: [box.scrollTop, box.scrollLeft], boxTop: top.top, boxLeft: top.left, headTop: head.top, taskLeft: task.left,
        tall: box.scrollHeight > box.clientHeight, wide: box.scrollWidth > box.clientWidth };
    })()`)) as Record<string, number | boolean | number[]>;
    expect([after.tall, after.wide]).toEqual([true, true]);
    expect((after.scrolled as number[])[0]).toBeGreaterThan(0);
    expect(Math.abs((after.headTop as number) - (after.boxTop as number))).toBeLessThan(3);
    expect(Math.abs((after.taskLeft as number) - (after.boxLeft as number))).toBeLessThan(3);
  });

  it('filters to the tasks that changed', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/runs/grid`);
    await page.waitForSelector('#task-grid tbody tr');
    await page.check('#only-changed');
    const shown = await gridShown(page);
    const changed = new Set(expected.flatMap((r) => [...r.regressed, ...r.fixed]));
    expect(shown.rows.map((r) => r.task).sort()).toEqual([...changed].sort());
    expect(shown.rows.length).toBeLessThan(226);
    for (const row of shown.rows)
      expect(row.cells.some((c) => c === '▼' || c === '▼!' || c === '▲')).toBe(true);
    await page.uncheck('#only-changed');
    expect((await gridShown(page)).rows.length).toBe(226);
  });

  it('is in the report opened from disk, with the same cells', async () => {
    const html = await buildReport([{ id: 'grid', dir: path.join(runs, 'grid') }]);
    const file = path.join(runs, 'report.html');
    writeFileSync(file, html);
    const page = await browser.context.newPage();
    await page.goto(`${pathToFileURL(file).href}#/runs/grid`);
    await page.waitForSelector('#task-grid tbody tr');
    const fromDisk = await gridShown(page);
    const served = await browser.context.newPage();
    await served.goto(`${server.url}/runs/grid`);
    await served.waitForSelector('#task-grid tbody tr');
    expect(fromDisk).toEqual(await gridShown(served));
  });
});
