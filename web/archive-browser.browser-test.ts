import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Archive, openArchive, runLockFile } from '../archive/index.ts';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { runCli } from '../test/run-cli.ts';
import { buildReport } from './report.ts';
import { type RunningServer, startServer } from './server.ts';
import { launchChromium, openPage } from './testing/chromium.ts';

/** The little of the page's globals the predicates below read (this project compiles without the DOM types). */
interface PageGlobals {
  scrollY: number;
  document: {
    title: string;
    activeElement: { id: string; name?: string } | null;
    body: { dataset: Record<string, string | undefined> };
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
  const page = await openPage(context, url);
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
  live.recordEvent(id, 'done', { status: 'evaluated', score });
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

  // A run stopped by its budget: the sim at a nominal price, with a budget it reaches.
  const budget = await runCli('generate-loop', [
    ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '5', '--seed', '3'],
    ...['--eval-samples', '10', '--sim-price-per-mtok', '100', '--budget-usd', '3'],
    ...['--out', runs, '--run-id', 'budget', '--quiet'],
  ]);
  expect(budget.code, budget.stderr).toBe(0);
  // A run whose every generation failed: a scripted MetaAgent that never changes anything.
  const script = path.join(runs, '..', `nothing-${path.basename(runs)}.json`);
  writeFileSync(script, JSON.stringify({ meta: [['I changed nothing.'], ['I changed nothing again.']] }));
  const nothing = await runCli('generate-loop', [
    ...['--domains', 'arithmetic', '--model', 'sim', '--sim-script', script, '--generations', '2'],
    ...['--eval-samples', '6', '--out', runs, '--run-id', 'allfailed', '--quiet'],
  ]);
  expect(nothing.code, nothing.stderr).toBe(0);

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
    config: { generations: 80 },
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
    expect(await rows.count()).toBe(11);
    const sim = page.locator('#runs tbody tr', { hasText: 'sim1' });
    expect(await sim.locator('.badge-done').count()).toBe(1);
    expect(await sim.locator('.badge-sim').count()).toBe(1);
    expect(await page.locator('#runs tbody tr', { hasText: 'live' }).locator('.badge-running').count()).toBe(
      1,
    );
    // A run whose every generation failed is not a green "done": it is failed, with its failures counted.
    const failed = page.locator('#runs tbody tr[data-run-row="allfailed"]');
    expect(await failed.locator('.badge-failed').count()).toBe(1);
    expect(await failed.locator('.badge-done').count()).toBe(0);
    expect(await failed.getAttribute('class')).toContain('level-error');
    expect(await failed.locator('.fail-count').textContent()).toBe('2 of 2');
    const budget = page.locator('#runs tbody tr[data-run-row="budget"]');
    expect(await budget.getAttribute('class')).toContain('level-warning');
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

  it("shows the evidence: the generation, the logs, a parse failure's raw output, a log without a transcript", async () => {
    const page = await open(`${server.url}/runs/sim1/variants/1`);
    expect(await page.locator('.facts').first().textContent()).toMatch(/^generation 1 · score/);
    expect(await page.locator('#meta-ended').textContent()).toMatch(/^It finished: \d+ tool call/);
    await page.click('#log-meta summary');
    await page.waitForSelector('#log-meta pre');
    expect(await page.locator('#log-meta pre').textContent()).toContain('[meta-agent] assistant:');

    const { tasks } = (await (await fetch(`${server.url}/api/runs/sim1/variants/0`)).json()) as {
      tasks: { outcome: string }[];
    };
    const page0 = await open(`${server.url}/runs/sim1/variants/0`);
    expect(await page0.locator('#tasks .raw-output').count()).toBe(
      tasks.filter((t) => t.outcome === 'parse_failure').length,
    );

    rmSync(path.join(runs, 'allfailed', 'logs', 'variant-1', 'meta-transcript.json'));
    const page1 = await open(`${server.url}/runs/allfailed/variants/1`);
    await page1.waitForSelector('#transcript pre');
    expect(await page1.locator('#transcript').textContent()).toContain(
      '[meta-agent] assistant: I changed nothing.',
    );
    await shot(page1, 'variant-log-without-transcript');
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

  it('compares 3 + 3 runs: median best-so-far with intervals, each run with its group, a rank test', async () => {
    const page = await open(`${server.url}/`);
    for (const id of [...FULL, ...LATEST]) await page.check(`input[data-run="${id}"]`);
    await Promise.all([page.waitForURL(/\/compare\?runs=/), page.click('#compare-selected')]);
    await page.waitForSelector('body[data-rendered="compareRuns"]');
    expect(await page.locator('#compare-chart canvas').count()).toBeGreaterThan(0);
    expect(await page.locator('#compare-runs tbody tr').count()).toBe(6);
    // The lifted group ends higher in every seed: the exact two-sided p of 3 vs 3 is 2/20.
    expect(await page.locator('#rank-test').textContent()).toMatch(/p = 0\.1000 \(exact\)$/);
    expect(await page.locator('#experiment-configs tbody tr').count()).toBe(2);
    expect(await page.locator('#experiment-tests tbody tr').first().textContent()).toMatch(/ > /);
    await shot(page, 'compare-runs');
    await page.close();
  });

  it('shows why a run stopped at the top: the budget, with the command that continues it', async () => {
    const budgetArchive = openArchive(path.join(runs, 'budget', 'archive.sqlite'));
    budgetArchive.recordEvent(null, 'control', { action: 'note', value: 'try <b>smaller</b> edits' });
    budgetArchive.close();
    const page = await open(`${server.url}/runs/budget`);
    // The controls the run was given are listed, as text.
    expect(await page.locator('#controls li').last().textContent()).toMatch(
      / note try <b>smaller<\/b> edits$/,
    );
    expect(await page.locator('#controls b').count()).toBe(0);
    const health = page.locator('#health');
    expect(await health.locator('.badge-stopped').count()).toBe(1);
    expect(await page.locator('#health-why').textContent()).toMatch(
      /^stopped by the budget: \$\d+\.\d{4} spent of \$3\.0000/,
    );
    expect(await page.locator('#resume-command').textContent()).toBe(
      `hyperagents generate-loop --resume ${path.join(runs, 'budget')} --budget-usd 6`,
    );
    expect(await page.locator('#health-budget').textContent()).toMatch(/of the \$3\.0000 budget \(\d+ %\)/);
    expect(await page.locator('#health-pace').textContent()).toMatch(
      /generations per hour · at this pace, \d+ more take about .* and \$\d+\.\d{4}/,
    );
    expect(await page.title()).toMatch(/^stopped \d\/5 · best \d\.\d{3} · run budget$/);
    // The spend chart has one point a generation, not one a model call.
    const data = (await (await fetch(`${server.url}/api/runs/budget`)).json()) as {
      spend: { generation: number | null }[];
      run: { llmCalls: number };
    };
    expect(data.spend.length).toBeLessThan(data.run.llmCalls);
    expect(await page.locator('#spend-chart canvas').count()).toBeGreaterThan(0);
    await shot(page, 'health-budget');
    await page.close();
  });

  it('shows a run whose every generation failed as failed, with the failures by cause', async () => {
    const page = await open(`${server.url}/runs/allfailed`);
    expect(await page.locator('#health .badge-failed').count()).toBe(1);
    expect(await page.locator('h1 .badge-done').count()).toBe(0);
    expect(await page.locator('#health-why').textContent()).toBe(
      'every generation failed (2 of 2: 2 rejected at the gate)',
    );
    expect(await page.locator('#health .health').getAttribute('class')).toContain('health-error');
    expect(await page.title()).toMatch(/^failed 2\/2 · best \d\.\d{3} · run allfailed$/);
    await page.close();
  });

  it('updates a running run in place: scroll, focus and untouched rows stay while variants arrive', async () => {
    for (let id = 1; id <= 60; id++) liveVariant(id, Math.floor((id - 1) / 2), 0.3 + id * 0.005);
    const page = await open(`${server.url}/runs/live`);
    expect(await page.locator('#live-bar').isVisible()).toBe(true);
    expect(await page.locator('#tree a.node').count()).toBe(61);
    expect(await page.title()).toBe('running 60/80 · best 0.600 · run live');
    await page.evaluate('window.__sameDocument = true');
    await page.focus('select[name=domain]');
    // Row 55 of the variants table near the top of the window, marked to tell whether it is redrawn. New
    // rows arrive above it: what the reader looks at must not move.
    await page.evaluate(`(() => {
      const row = document.querySelector('#variants tr[data-variant-row="55"]');
      row.__kept = true;
      window.scrollTo(0, row.getBoundingClientRect().top + window.scrollY - 60);
    })()`);
    const top = (): Promise<number> =>
      page.evaluate(
        `document.querySelector('#variants tr[data-variant-row="55"]').getBoundingClientRect().top`,
      );
    const before = { top: await top(), scrollY: await page.evaluate('window.scrollY') };
    expect(before.scrollY).toBeGreaterThan(500);
    expect(Math.abs(before.top - 60)).toBeLessThan(2);
    for (let id = 61; id <= 63; id++) {
      const updates = Number((await page.getAttribute('body', 'data-updates')) ?? 0);
      liveVariant(id, id - 1, 0.5 + id * 0.001);
      await page.waitForFunction(
        (n) => Number((globalThis as unknown as PageGlobals).document.body.dataset.updates ?? 0) > n,
        updates,
      );
      await page.waitForSelector(`#variants tr[data-variant-row="${id}"]`);
    }
    expect(await page.locator('#tree a.node').count()).toBe(64);
    expect(await page.locator('#variants tbody tr').count()).toBe(64);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    expect(await page.evaluate('document.activeElement && document.activeElement.name')).toBe('domain');
    expect(await page.evaluate(`document.querySelector('#variants tr[data-variant-row="55"]').__kept`)).toBe(
      true,
    );
    expect(Math.abs((await top()) - before.top)).toBeLessThan(2);
    expect(await page.title()).toBe('running 63/80 · best 0.600 · run live');
    await shot(page, 'run-live');

    // Paused: the page shows the run as it was; resumed, it catches up.
    await page.check('#live-pause');
    liveVariant(64, 63, 0.7);
    await page.waitForTimeout(800);
    expect(await page.locator('#variants tbody tr').count()).toBe(64);
    await page.uncheck('#live-pause');
    await page.waitForSelector('#variants tr[data-variant-row="64"]');

    live.finishRun('done');
    await page.waitForSelector('h1 .badge-done');
    // Its process still holds it (its last alerts go out then): the page stays live until it lets go.
    expect(await page.locator('#live-bar').isVisible()).toBe(true);
    rmSync(runLockFile(path.join(runs, 'live')));
    await page.waitForSelector('#live-bar', { state: 'hidden' });
    expect(await page.title()).toBe('done 64/80 · best 0.700 · run live');
    await page.close();
  });

  it('keeps the list of runs live: a new run appears and a running one changes in place', async () => {
    const page = await open(`${server.url}/`);
    await page.check('input[data-run="full-1"]');
    writeSyntheticRun(runs, { id: 'newcomer', variants: 4, seed: 5 });
    await page.waitForSelector('#runs tr[data-run-row="newcomer"]');
    expect(await page.isChecked('input[data-run="full-1"]')).toBe(true);
    expect(await page.evaluate('window.scrollY')).toBe(0);
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
    expect(await page.locator('#compare-runs tbody tr').count()).toBe(ids.length);
    expect(await page.locator('#include-short').isDisabled()).toBe(true);
    await shot(page, 'report-compare');
    expect(requests).toEqual([]);
    await page.close();
  });
});
