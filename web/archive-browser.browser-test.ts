import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Archive, openArchive } from '../archive/archive.ts';
import { runLockFile } from '../archive/run-folder.ts';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { runCli } from '../test/run-cli.ts';
import { buildReport } from './report.ts';
import { type RunningServer, startServer } from './server.ts';
import { launchChromium } from './testing/chromium.ts';

/** The little of the page's globals the predicates below read (this project compiles without the DOM types). */
interface PageGlobals {
  document: {
    querySelectorAll(selector: string): { length: number };
    querySelector(
      selector: string,
    ): { textContent: string | null; previousElementSibling: { textContent: string | null } | null } | null;
  };
}

/** Screenshots land here, to be looked at after a run. */
const SCREENSHOTS = path.join(tmpdir(), 'hyperagents-browser-screenshots');

const runs = mkdtempSync(path.join(tmpdir(), 'browser-runs-'));
const HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
const FULL = ['full-1', 'full-2', 'full-3'];
const LATEST = ['latest-1', 'latest-2', 'latest-3'];

let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let live: Archive;

async function open(url: string): Promise<Page> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForSelector('body[data-rendered]');
  expect(errors).toEqual([]);
  expect(await page.getAttribute('body', 'data-rendered')).not.toBe('error');
  return page;
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });

function liveVariant(id: number, parent: number, score: number): void {
  live.insertVariant({ id, parentId: parent, step: 'selected' });
  live.putEvaluation({
    variantId: id,
    domain: 'arithmetic',
    split: 'val',
    stage: 'full',
    score,
    nTasks: 10,
    nTotal: 10,
    correct: Math.round(score * 10),
    wrong: 10 - Math.round(score * 10),
    parseFailures: 0,
    errors: 0,
  });
  live.updateVariant(id, { step: 'done', status: 'evaluated', validParent: true, selectionScore: score });
  live.logEvent(id, 'evaluated', { score });
}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const sim = await runCli('generate-loop', [
    '--domains',
    'arithmetic',
    '--model',
    'sim',
    '--generations',
    '2',
    '--eval-samples',
    '12',
    '--out',
    runs,
    // Seed 4: both children are evaluated and have a diff on the sim landscape.
    '--seed',
    '4',
    '--run-id',
    'sim1',
    '--quiet',
  ]);
  expect(sim.code, sim.stderr).toBe(0);
  // What a hostile MetaAgent could leave: markup and script in its own transcript.
  const transcriptFile = path.join(runs, 'sim1', 'logs', 'variant-1', 'meta-transcript.json');
  const transcript = JSON.parse(readFileSync(transcriptFile, 'utf8'));
  transcript.finalText = `I changed the prompt. ${HOSTILE}`;
  transcript.messages.push({ role: 'assistant', content: `Done. ${HOSTILE}` });
  writeFileSync(transcriptFile, JSON.stringify(transcript));

  writeSyntheticRun(runs, { id: 'tree50', variants: 50, seed: 11 });
  FULL.forEach((id, i) => {
    writeSyntheticRun(runs, { id, variants: 20, seed: 100 + i, lift: 0.02 });
  });
  LATEST.forEach((id, i) => {
    writeSyntheticRun(runs, {
      id,
      variants: 20,
      seed: 200 + i,
      lift: -0.005,
      config: { parentSelection: 'latest' },
    });
  });
  mkdirSync(path.join(runs, 'live'));
  // A run under way is held by the process writing it.
  writeFileSync(runLockFile(path.join(runs, 'live')), `${process.pid}\n`);
  live = openArchive(path.join(runs, 'live', 'archive.sqlite'));
  live.createRun({
    id: 'live',
    harnessVersion: 'test',
    seed: 1,
    metaModel: 'sim',
    taskModel: 'sim',
    simulated: true,
    domains: ['arithmetic'],
    config: { generations: 5 },
  });
  live.insertVariant({ id: 0, parentId: null, step: 'selected' });
  live.updateVariant(0, { step: 'done', status: 'evaluated', validParent: true, selectionScore: 0.3 });

  server = await startServer({ runsDir: runs, pollMs: 200 });
  browser = await launchChromium();
  context = browser.context;
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  live?.close();
});

describe('the archive browser in headless Chromium', () => {
  it('lists every run with its state, and marks simulated runs', async () => {
    const page = await open(`${server.url}/`);
    const rows = page.locator('#runs tbody tr');
    expect(await rows.count()).toBe(9);
    const sim = page.locator('#runs tbody tr', { hasText: 'sim1' });
    expect(await sim.locator('.badge-done').count()).toBe(1);
    expect(await sim.locator('.badge-sim').count()).toBe(1);
    expect(await page.locator('#runs tbody tr', { hasText: 'live' }).locator('.badge-running').count()).toBe(
      1,
    );
    await shot(page, 'runs');
    await page.close();
  });

  it('draws a run: score chart, spend chart, lineage tree; a click on the tree opens the variant', async () => {
    const page = await open(`${server.url}/runs/sim1`);
    expect(await page.locator('#score-chart canvas').count()).toBeGreaterThan(0);
    expect(await page.locator('#spend-chart').textContent()).toContain('the simulated model is free');
    expect(await page.locator('#tree a.node').count()).toBe(3);
    expect(await page.locator('#variants tbody tr').count()).toBe(3);
    await page.selectOption('select[name=domain]', 'arithmetic');
    await page.selectOption('select[name=split]', 'train');
    expect(await page.locator('#tree a.node').count()).toBe(3);
    await shot(page, 'run-sim');
    await Promise.all([
      page.waitForURL(/\/runs\/sim1\/variants\/1$/),
      page.locator('#tree a.node[data-variant="1"]').click(),
    ]);
    await page.waitForSelector('body[data-rendered="variant"]');
    expect(await page.locator('h1').textContent()).toContain('Variant 1');
    await page.close();
  });

  it('shows a variant: diff against its parent and any other, tasks, transcript as text, model calls', async () => {
    const page = await open(`${server.url}/runs/sim1/variants/1`);
    await page.waitForSelector('#diff .d2h-file-wrapper');
    expect(await page.locator('#diff').textContent()).toContain('agents/');
    expect(await page.locator('#scores tbody tr').count()).toBe(2);
    const taskRows = page.locator('#tasks tbody tr');
    expect(await taskRows.count()).toBeGreaterThan(0);
    expect(await taskRows.first().textContent()).toMatch(/How many|What|\d/);
    await page.check('#failed-only');
    expect(await page.locator('#tasks tbody tr', { hasText: '✓' }).count()).toBe(0);
    expect(await page.locator('#llm-calls tbody tr').count()).toBeGreaterThan(0);

    expect(await page.locator('#summary').textContent()).toContain(HOSTILE);
    expect(await page.locator('#transcript').textContent()).toContain(HOSTILE);
    expect(
      await page.locator('#transcript script, #transcript img, #summary script, #summary img').count(),
    ).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await shot(page, 'variant-sim');

    const page2 = await open(`${server.url}/runs/sim1/variants/2`);
    await page2.waitForSelector('#diff .d2h-file-wrapper');
    await page2.selectOption('#diff-against', '0');
    await page2.waitForFunction(() =>
      (globalThis as unknown as PageGlobals).document
        .querySelector('#diff')
        ?.previousElementSibling?.textContent?.includes('variant 0'),
    );
    expect(await page2.locator('#diff .d2h-file-wrapper').count()).toBeGreaterThan(0);
    await page2.selectOption('#compare-with', '0');
    await Promise.all([page2.waitForURL(/compare\/2\/0$/), page2.click('text=Compare tasks')]);
    await page2.waitForSelector('body[data-rendered="compareVariants"]');
    expect(await page2.locator('#compare-counts').textContent()).toMatch(
      /both solve \d+ · neither \d+ · only 2: \d+ · only 0: \d+/,
    );
    await shot(page2, 'compare-variants');
    await page.close();
    await page2.close();
  });

  it('draws a readable tree of a 50-variant run, with rejected and failed variants marked', async () => {
    const page = await open(`${server.url}/runs/tree50`);
    expect(await page.locator('#tree a.node').count()).toBe(50);
    expect(await page.locator('#score-chart canvas').count()).toBeGreaterThan(0);
    expect(await page.locator('#spend-chart canvas').count()).toBeGreaterThan(0);
    expect(await page.locator('#tree rect.rejected').count()).toBeGreaterThan(0);
    expect(await page.locator('#tree circle.failed').count()).toBeGreaterThan(0);
    expect(await page.locator('#tree .edge-best').count()).toBeGreaterThan(0);
    await page.locator('#tree').screenshot({ path: path.join(SCREENSHOTS, 'tree-50.png') });
    await shot(page, 'run-50');
    await page.close();
  });

  it('compares 3 + 3 runs: median best-so-far with intervals, final scores side by side, a rank test', async () => {
    const page = await open(`${server.url}/`);
    for (const id of [...FULL, ...LATEST]) await page.check(`input[data-run="${id}"]`);
    await Promise.all([page.waitForURL(/\/compare\?runs=/), page.click('#compare-selected')]);
    await page.waitForSelector('body[data-rendered="compareRuns"]');
    expect(await page.locator('#compare-chart canvas').count()).toBeGreaterThan(0);
    expect(await page.locator('#finals .group').count()).toBe(2);
    expect(await page.locator('#finals tbody tr').count()).toBe(6);
    const test = await page.locator('#rank-tests tbody tr').first().textContent();
    expect(test).toContain('exact');
    // The lifted group ends higher in every seed: the exact one-sided p of 3 vs 3 is 1/20.
    expect(test).toContain('0.0500');
    expect(await page.locator('#experiment-configs tbody tr').count()).toBe(2);
    expect(await page.locator('#experiment-tests tbody tr').first().textContent()).toMatch(/ > /);
    await shot(page, 'compare-runs');
    await page.close();
  });

  it('updates a running run live, without reloading', async () => {
    const page = await open(`${server.url}/runs/live`);
    expect(await page.locator('.badge-live').count()).toBe(1);
    expect(await page.locator('#tree a.node').count()).toBe(1);
    await page.evaluate('window.__sameDocument = true');
    liveVariant(1, 0, 0.4);
    liveVariant(2, 1, 0.55);
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobals).document.querySelectorAll('#tree a.node').length === 3,
    );
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    expect(Number(await page.getAttribute('body', 'data-updates'))).toBeGreaterThan(0);
    await shot(page, 'run-live');
    live.finishRun('done');
    await page.waitForSelector('h1 .badge-done');
    expect(await page.locator('.badge-live').count()).toBe(0);
    await page.close();
  });
});

describe('the report, opened from disk', () => {
  it('holds the same views with no server and no network, and shows agent text as text', async () => {
    const ids = ['sim1', 'tree50', ...FULL, ...LATEST];
    const html = await buildReport(ids.map((id) => ({ id, dir: path.join(runs, id) })));
    expect(html).not.toContain(HOSTILE);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'report-')), 'report.html');
    writeFileSync(file, html);
    await server.close();
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url());
    });
    const url = pathToFileURL(file).href;
    await page.goto(url);
    await page.waitForSelector('body[data-rendered="runs"]');
    expect(await page.locator('#runs tbody tr').count()).toBe(ids.length);

    await page.goto(`${url}#/runs/sim1`);
    await page.waitForSelector('body[data-rendered="run"] #tree a.node');
    expect(await page.locator('#score-chart canvas').count()).toBeGreaterThan(0);
    await page.locator('#tree a.node[data-variant="1"]').click();
    await page.waitForFunction(() =>
      (globalThis as unknown as PageGlobals).document.querySelector('h1')?.textContent?.includes('Variant 1'),
    );
    await page.waitForSelector('#diff .d2h-file-wrapper');
    expect(await page.locator('#transcript').textContent()).toContain(HOSTILE);
    expect(await page.locator('#transcript script, #transcript img').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await shot(page, 'report-variant');

    await page.goto(`${url}#/compare?runs=${ids.join(',')}`);
    await page.waitForSelector('body[data-rendered] #compare-chart canvas');
    expect(await page.locator('#finals .group').count()).toBe(2);
    await shot(page, 'report-compare');
    expect(requests).toEqual([]);
    await page.close();
  });
});
