import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveFile, openArchive } from '../archive/index.ts';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { runCli } from '../test/run-cli.ts';
import { type RunningServer, startServer } from './server.ts';
import { launchChromium, openPage } from './testing/chromium.ts';
import { contrast } from './testing/contrast.ts';

const runs = mkdtempSync(path.join(tmpdir(), 'browser-costs-'));
/** Screenshots land here, to be looked at after a run. */
const SCREENSHOTS = path.join(tmpdir(), 'hyperagents-browser-screenshots');
let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

/** What every variant of the run `costly` calls: known sums by role and by model. */
const CALLS = [
  {
    role: 'meta',
    model: 'big-model',
    reportedModel: 'big-model-2026-01-15',
    costUsd: 0.05,
    input: 5000,
    output: 800,
  },
  { role: 'task', model: 'small-model', costUsd: 0.01, input: 1000, output: 100 },
  { role: 'task', model: 'small-model', costUsd: 0.012, input: 1200, output: 90 },
  { role: 'select', model: 'small-model', costUsd: 0.002, input: 300, output: 20 },
  // One role on two models: its layer sums both.
  { role: 'meta', model: 'small-model', costUsd: 0.004, input: 400, output: 40 },
];

const open = (url: string, width = 1280): Promise<Page> => openPage(browser.context, url, { width });

/** Rows of SQL over a run's archive, read beside the server. */
function sql<T>(run: string, query: string): T[] {
  const db = new Database(archiveFile(path.join(runs, run)), { readonly: true });
  try {
    return db.prepare(query).all() as T[];
  } finally {
    db.close();
  }
}

const usd = (n: number) => `$${n.toFixed(4)}`;

/** The rows of a table on the page, as the text of their cells. */
const tableRows = (page: Page, selector: string) =>
  page.evaluate(
    `[...document.querySelectorAll('${selector} tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent))`,
  ) as Promise<string[][]>;

/** Moves the pointer over x value `x` in the middle of the chart in `selector`, and reads its legend. */
async function hover(page: Page, selector: string, x: number): Promise<Record<string, string>> {
  await page.locator(selector).scrollIntoViewIfNeeded();
  const at = (await page.evaluate(`(() => {
    const el = document.querySelector('${selector}');
    const r = el.querySelector('.u-over').getBoundingClientRect();
    return { x: r.left + el.__plot.valToPos(${x}, 'x'), y: r.top + r.height / 2 };
  })()`)) as { x: number; y: number };
  await page.mouse.move(at.x, at.y);
  return (await page.evaluate(`Object.fromEntries([...document.querySelectorAll('${selector} .u-legend .u-series')]
    .map((tr) => [tr.querySelector('.u-label').textContent, tr.querySelector('.u-value').textContent]))`)) as Record<
    string,
    string
  >;
}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  writeSyntheticRun(runs, { id: 'costly', variants: 12, seed: 5, calls: CALLS });
  writeSyntheticRun(runs, { id: 'plain', variants: 8, seed: 6 });
  writeSyntheticRun(runs, { id: 'growing', variants: 3, seed: 8, status: 'running', calls: CALLS });
  // A run that confirmed its best and measured its noise floor, wide enough that the best's gain is within it.
  writeSyntheticRun(runs, { id: 'noisy', variants: 10, seed: 7, calls: CALLS });
  const archive = openArchive(archiveFile(path.join(runs, 'noisy')));
  const scored = archive
    .listVariants()
    .filter((v) => v.selectionScore !== null)
    .sort((a, b) => (b.selectionScore ?? 0) - (a.selectionScore ?? 0));
  const top = scored[0]!;
  archive.putConfirmedScore({
    variantId: top.id,
    rawScore: top.selectionScore!,
    confirmedScore: top.selectionScore! - 0.04,
    firstAttempt: 1,
    attempts: 3,
    scores: [top.selectionScore! - 0.05, top.selectionScore! - 0.04, top.selectionScore! - 0.03],
  });
  archive.putNoiseFloor([0.1, 0.5, 0.9]);
  archive.close();
  // A real sim run whose MetaAgent adds a TypeScript file: a diff with code to highlight.
  const script = path.join(runs, '..', `ts-edit-${path.basename(runs)}.json`);
  const edit = {
    name: 'editor',
    input: {
      command: 'create',
      path: 'agents/task/note.ts',
      file_text:
        "// A note.\nexport const NOTE = 'highlighted';\nexport function twice(n: number): number {\n  return 2 * n;\n}\n",
    },
  };
  writeFileSync(script, JSON.stringify({ meta: [[{ content: '', toolCalls: [edit] }, 'I added a note.']] }));
  const sim = await runCli('generate-loop', [
    ...['--domains', 'arithmetic', '--model', 'sim', '--sim-script', script, '--generations', '1'],
    ...['--eval-samples', '6', '--out', runs, '--run-id', 'sim', '--quiet'],
  ]);
  rmSync(script, { force: true });
  expect(sim.code, sim.stderr).toBe(0);
  server = await startServer({ runsDir: runs });
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(runs, { recursive: true, force: true });
});

describe('costs, highlighted diffs and trusted scores on the pages, in headless Chromium', () => {
  it('stacks each generation’s spend by role, and by model when switched, with totals matching the archive', async () => {
    const page = await open(`${server.url}/runs/costly`);
    await page.waitForSelector('#spend-stack canvas');
    const byRole = sql<{ role: string; cost: number }>(
      'costly',
      'SELECT role, SUM(cost_usd) AS cost FROM llm_calls GROUP BY role ORDER BY role',
    );
    expect(byRole.map((r) => r.role)).toEqual(['meta', 'select', 'task']);
    expect((await tableRows(page, '#spend-totals')).map((r) => r.slice(0, 2))).toEqual(
      byRole.map((r) => [r.role, usd(r.cost)]),
    );
    // The bars stand on 0, so each layer's height is its share.
    expect(await page.evaluate(`document.querySelector('#spend-stack').__plot.scales.y.min`)).toBe(0);
    // Pointing at a generation shows what each role spent in it.
    const gen = 3;
    const inGen = sql<{ role: string; cost: number }>(
      'costly',
      `SELECT role, SUM(cost_usd) AS cost FROM llm_calls WHERE variant_id = ${gen} GROUP BY role`,
    );
    const legend = await hover(page, '#spend-stack', gen);
    expect(legend.generation).toBe(String(gen));
    for (const r of inGen) expect(legend[r.role], r.role).toBe(usd(r.cost));
    expect(legend.meta).toBe(usd(0.054));

    await page.selectOption('#spend-by', 'model');
    await page.waitForURL('**/runs/costly?spend=model');
    const byModel = sql<{ model: string; cost: number }>(
      'costly',
      'SELECT model, SUM(cost_usd) AS cost FROM llm_calls GROUP BY model ORDER BY model',
    );
    expect((await tableRows(page, '#spend-totals')).map((r) => r.slice(0, 2))).toEqual(
      byModel.map((r) => [r.model, usd(r.cost)]),
    );
    const legendByModel = await hover(page, '#spend-stack', gen);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'costs-run.png'), fullPage: true });
    expect(Object.keys(legendByModel).sort()).toEqual(['big-model', 'generation', 'small-model']);
    expect(legendByModel['small-model']).toBe(usd(0.01 + 0.012 + 0.002 + 0.004));
    // The address keeps the choice.
    await page.reload();
    await page.waitForSelector('#spend-stack canvas');
    expect(await page.inputValue('#spend-by')).toBe('model');
    await page.close();
  });

  it('gives each variant its calls and tokens in and out, in the run’s table and on its page', async () => {
    const sums = sql<{ id: number; calls: number; input: number; output: number }>(
      'costly',
      `SELECT variant_id AS id, COUNT(*) AS calls, SUM(input_tokens) AS input, SUM(output_tokens) AS output
       FROM llm_calls GROUP BY variant_id ORDER BY variant_id`,
    );
    expect(sums).toHaveLength(12);
    const page = await open(`${server.url}/runs/costly`);
    const header = (await page.evaluate(
      `[...document.querySelectorAll('#variants thead th')].map((th) => th.textContent)`,
    )) as string[];
    const rows = await tableRows(page, '#variants');
    for (const s of sums) {
      const row = rows.find((r) => r[0] === String(s.id))!;
      expect(row[header.indexOf('calls')]).toBe(String(s.calls));
      expect(row[header.indexOf('tokens in')]).toBe(s.input.toLocaleString('en-US'));
      expect(row[header.indexOf('tokens out')]).toBe(s.output.toLocaleString('en-US'));
    }
    await page.close();
    const variant = await open(`${server.url}/runs/costly/variants/4`);
    expect(await variant.textContent('#variant-spend')).toBe(
      '$0.0780 in 5 calls, 7,900 tokens in, 1,050 out',
    );
    // Each call names its model, and the one its provider said served it when that differs.
    expect((await tableRows(variant, '#llm-calls')).map((r) => r[2])).toEqual([
      'big-model (served by big-model-2026-01-15)',
      'small-model',
      'small-model',
      'small-model',
      'small-model',
    ]);
    await variant.close();
  });

  it('plots score against the spend so far, each point opening its variant', async () => {
    const page = await open(`${server.url}/runs/costly`);
    await page.waitForSelector('#score-cost-chart canvas');
    const spent = sql<{ id: number; cum: number; score: number | null }>(
      'costly',
      `SELECT v.id, (SELECT SUM(cost_usd) FROM llm_calls c WHERE c.variant_id <= v.id) AS cum,
         v.selection_score AS score FROM variants v ORDER BY v.id`,
    );
    const target = spent.filter((v) => v.score !== null).at(-2)!;
    const legend = await hover(page, '#score-cost-chart', target.cum);
    expect(legend.variant).toBe(`${target.score!.toFixed(3)} (variant ${target.id})`);
    await Promise.all([
      page.waitForURL(`**/runs/costly/variants/${target.id}`),
      page.mouse.down().then(() => page.mouse.up()),
    ]);
    await page.close();
  });

  it('updates the costs of a running run in place as calls arrive, a new role getting its layer', async () => {
    const page = await open(`${server.url}/runs/growing`);
    await page.waitForSelector('#spend-stack canvas');
    await page.evaluate('window.__sameDocument = true');
    expect((await tableRows(page, '#spend-totals')).map((r) => r[0])).toEqual(['meta', 'select', 'task']);
    const archive = openArchive(archiveFile(path.join(runs, 'growing')));
    archive.insertVariant({ id: 3, parentId: 0, step: 'editing' });
    archive.insertLlmCall({
      ts: new Date().toISOString(),
      variantId: 3,
      role: 'judge',
      model: 'big-model',
      usage: { input: 10, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      costUsd: 0.5,
      latencyMs: 5,
      status: 'ok',
    });
    archive.close();
    await page.locator('#spend-totals tbody td', { hasText: /^judge$/ }).waitFor();
    expect((await tableRows(page, '#spend-totals')).find((r) => r[0] === 'judge')?.[1]).toBe('$0.5000');
    expect((await hover(page, '#spend-stack', 3)).judge).toBe('$0.5000');
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    await page.close();
  });

  it('draws the cost charts within a 390 px phone screen', async () => {
    const page = await open(`${server.url}/runs/costly`, 390);
    await page.waitForSelector('#score-cost-chart canvas');
    expect(
      await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
    ).toBeLessThanOrEqual(0);
    for (const chart of ['#spend-stack', '#score-cost-chart'])
      expect(
        await page.evaluate(`document.querySelector('${chart} .uplot').getBoundingClientRect().width`),
      ).toBeLessThanOrEqual(390);
    await page.close();
  });

  it('highlights the code of a diff, in either layout, readable on added and removed lines', async () => {
    const page = await open(`${server.url}/runs/sim/variants/1`);
    await page.waitForSelector('#diff .d2h-file-wrapper');
    expect(await page.locator('#diff .d2h-file-wrapper[data-lang="ts"]').count()).toBeGreaterThan(0);
    expect(await page.locator('#diff .d2h-code-line-ctn .hljs-keyword').count()).toBeGreaterThan(0);
    expect(await page.locator('#diff .d2h-code-line-ctn .hljs-string').count()).toBeGreaterThan(0);
    // Colour against the line's background, on added and removed lines alike: 4.5:1 or more.
    const pairs =
      (await page.evaluate(`[...document.querySelectorAll('#diff .d2h-ins [class^="hljs-"], #diff .d2h-del [class^="hljs-"]')]
      .map((el) => {
        let bg = el; let colour = 'rgba(0, 0, 0, 0)';
        while (bg && (colour === 'rgba(0, 0, 0, 0)' || colour === 'transparent')) { colour = getComputedStyle(bg).backgroundColor; bg = bg.parentElement; }
        return [getComputedStyle(el).color, colour, el.className];
      })`)) as [string, string, string][];
    expect(pairs.length).toBeGreaterThan(0);
    for (const [fg, bg, kind] of pairs)
      expect(contrast(fg, bg), `${kind}: ${fg} on ${bg}`).toBeGreaterThanOrEqual(4.5);

    await page.locator('#diff').screenshot({ path: path.join(SCREENSHOTS, 'costs-diff.png') });
    await page.selectOption('#diff-layout', 'side');
    await page.waitForSelector('#diff .d2h-file-side-diff');
    expect(page.url()).toContain('diff=side');
    expect(await page.locator('#diff .d2h-file-side-diff .hljs-keyword').count()).toBeGreaterThan(0);
    await page.close();
  });

  it('says the run’s best is raw when nothing was confirmed, with no noise mark', async () => {
    const page = await open(`${server.url}/runs/plain`);
    expect(await page.textContent('#best-score')).toMatch(
      /^\d\.\d{3} raw \(not confirmed\) \(variant \d+\)$/,
    );
    expect(await page.locator('.noise-mark').count()).toBe(0);
    await page.close();
  });

  it('shows a confirmed best beside its raw score, and marks a gain within the noise floor, on the run and variant pages', async () => {
    const [confirmed] = sql<{ variant_id: number; raw_score: number; confirmed_score: number }>(
      'noisy',
      'SELECT variant_id, raw_score, confirmed_score FROM confirmed_scores',
    );
    const [zero] = sql<{ score: number }>(
      'noisy',
      'SELECT selection_score AS score FROM variants WHERE id = 0',
    );
    const gain = confirmed!.raw_score - zero!.score;
    expect(gain).toBeGreaterThan(0);
    const page = await open(`${server.url}/runs/noisy`);
    expect(await page.textContent('#best-score')).toBe(
      `${confirmed!.confirmed_score.toFixed(3)} confirmed (raw ${confirmed!.raw_score.toFixed(3)}) (variant ${confirmed!.variant_id})`,
    );
    expect(await page.textContent('#run-header .within-noise')).toBe(
      `+${gain.toFixed(3)} over variant 0, within noise (±0.400)`,
    );
    // Every variant's row says whether its gain lies within the noise floor.
    const scores = sql<{ id: number; score: number }>(
      'noisy',
      'SELECT id, selection_score AS score FROM variants WHERE selection_score IS NOT NULL AND id > 0',
    );
    const within = scores
      .filter((v) => v.score - zero!.score > 0 && v.score - zero!.score < 0.4)
      .map((v) => v.id);
    expect(within.length).toBeGreaterThan(0);
    const marked = (await tableRows(page, '#variants'))
      .filter((r) => r[3]!.endsWith('within noise'))
      .map((r) => Number(r[0]))
      .sort((a, b) => a - b);
    expect(marked).toEqual(within.sort((a, b) => a - b));
    await page.click('#best-score');
    await page.waitForURL(`**/runs/noisy/variants/${confirmed!.variant_id}`);
    await page.waitForSelector('#score-standing');
    const standing = await page.textContent('#score-standing');
    expect(standing).toContain(
      `Confirmed ${confirmed!.confirmed_score.toFixed(3)} on 3 fresh attempts at the validation split (raw ${confirmed!.raw_score.toFixed(3)}): the run's reported best.`,
    );
    expect(standing).toContain(
      `Noise floor ±0.400 (variant 0 on 3 attempts): +${gain.toFixed(3)} over variant 0, within noise`,
    );
    await page.close();
  });
});
