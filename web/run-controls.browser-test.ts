import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlSecretFile } from '../archive/index.ts';
import { type RunningCli, readArchive, startCli, waitFor } from '../test/kill-points.ts';
import { runCli } from '../test/run-cli.ts';
import { type RunningServer, startServer } from './server.ts';
import { launchChromium, openPage } from './testing/chromium.ts';

const runs = mkdtempSync(path.join(tmpdir(), 'browser-controls-'));
const runDir = path.join(runs, 'steered');
const TOKEN = 'browser-test-token_0123456789';

let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

/** The little of the page's globals the predicates below read (this project compiles without the DOM types). */
interface PageGlobals {
  document: {
    getElementById(id: string): { textContent: string | null } | null;
    body: { dataset: { updates?: string } };
  };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const variants = () =>
  readArchive(runDir, (db: Database.Database) =>
    db.prepare('SELECT id, step FROM variants ORDER BY id').all(),
  ) as { id: number; step: string }[];
const ended = (v: { step: string }) => v.step === 'done' || v.step === 'failed';
const events = (type: string) =>
  (
    readArchive(runDir, (db: Database.Database) =>
      db.prepare('SELECT data FROM events WHERE type = ? ORDER BY id').all(type),
    ) as { data: string }[]
  ).map((e) => JSON.parse(e.data));

async function until(what: () => boolean, timeoutMs = 240_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(100);
  }
}

const open = (url: string): Promise<Page> => openPage(browser.context, url, { view: 'run' });

/** Waits until the page's control answer says `text`. */
const answered = (page: Page, text: string) =>
  page.waitForFunction(
    (t) =>
      (
        (globalThis as unknown as PageGlobals).document.getElementById('control-result')?.textContent ?? ''
      ).includes(t),
    text,
  );

/** The page's count of live updates it has patched in. */
const updatesPatched = (page: Page) =>
  page.evaluate(() => Number((globalThis as unknown as PageGlobals).document.body.dataset.updates ?? 0));

/**
 * Lets the page's next live update reach the server now and holds its answer; `release` hands it to
 * the page and waits until the page has patched it in.
 */
async function holdNextUpdate(page: Page): Promise<{ release(): Promise<void> }> {
  let fetched!: () => void;
  const asked = new Promise<void>((resolve) => {
    fetched = resolve;
  });
  let hand!: () => void;
  const handed = new Promise<void>((resolve) => {
    hand = resolve;
  });
  let holding = true;
  await page.route('**/update?*', async (route) => {
    if (!holding) return route.continue();
    holding = false;
    const response = await route.fetch();
    fetched();
    await handed;
    await route.fulfill({ response });
  });
  await asked;
  return {
    async release() {
      const before = await updatesPatched(page);
      hand();
      await page.waitForFunction(
        (n) => Number((globalThis as unknown as PageGlobals).document.body.dataset.updates ?? 0) > n,
        before,
      );
      await page.unroute('**/update?*');
    },
  };
}

const simRun = (...extra: string[]): RunningCli =>
  startCli([
    ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '30', '--seed', '4'],
    ...['--eval-samples', '6', '--out', runs, '--quiet', ...extra],
  ]);

beforeAll(async () => {
  server = await startServer({ runsDir: runs, pollMs: 200, controlToken: TOKEN });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(runs, { recursive: true, force: true });
});

describe("a running run's controls on its page, in headless Chromium", () => {
  it('pauses, takes a budget and a note, keeps them across a kill and --resume, resumes and stops', async () => {
    let run = simRun('--run-id', 'steered');
    expect(await waitFor(runDir, run, { variant: 1, step: 'selected' })).toBe(true);

    // Without the token the page only says where to get it; the server refuses a forged control.
    const bare = await open(`${server.url}/runs/steered`);
    expect(await bare.locator('#control-token-missing').count()).toBe(1);
    expect(await bare.locator('#control-pause').count()).toBe(0);
    const forged = await bare.evaluate(async () => {
      const r = await fetch('/api/runs/steered/control', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-control-token': 'guess' },
        body: '{"action":"pause"}',
      });
      return r.status;
    });
    expect(forged).toBe(403);
    await bare.close();
    expect(events('control')).toEqual([]);

    // The address serve prints carries the token; the page keeps it and takes it out of the address bar.
    const page = await open(`${server.url}/runs/steered#token=${TOKEN}`);
    expect(page.url()).not.toContain(TOKEN);
    expect(await page.locator('#control-resume').isDisabled()).toBe(true);
    // An update the page asked for before the pause and got after its answer says "not paused": it
    // must not turn Pause back on.
    const stale = await holdNextUpdate(page);
    await page.click('#control-pause');
    await answered(page, 'paused');
    await stale.release();
    expect(await page.locator('#control-pause').isDisabled()).toBe(true);
    expect(await page.locator('#control-resume').isDisabled()).toBe(false);
    // What was under way ends; nothing new starts while paused, and the health box says so.
    await until(() => variants().every(ended));
    const atPause = variants().length;
    await sleep(3000);
    expect(variants().length).toBe(atPause);
    await page.waitForFunction(() =>
      (
        (globalThis as unknown as PageGlobals).document.getElementById('health-why')?.textContent ?? ''
      ).startsWith('paused'),
    );

    await page.click('#control-budget-set');
    await answered(page, 'Give the budget in US dollars');
    await page.fill('#control-budget', '100');
    await page.click('#control-budget-set');
    await answered(page, 'the budget is now $100.0000');
    await page.fill('#control-note', 'try smaller edits');
    await page.press('#control-note', 'Enter');
    await answered(page, 'note recorded');
    expect(await page.inputValue('#control-note')).toBe('');

    // The run is killed while paused and continued: the pause and the budget still hold.
    run.child.kill('SIGKILL');
    await run.done;
    run = startCli(['--resume', 'steered', '--out', runs, '--quiet']);
    await until(() => events('resumed').length === 1);
    expect(events('resumed')[0].carried).toEqual({ paused: true, stopAfter: false, budgetUsd: 100 });
    await sleep(3000);
    expect(variants().filter((v) => !ended(v))).toEqual([]);
    expect(variants().length).toBe(atPause);

    await page.reload();
    await page.waitForSelector('#control-resume:not([disabled])');
    // The estimates printed at the start and at the resume, what the run took so far, and where its pace
    // leads: the generations left cost more on top of what was spent.
    const estimateRows = await page
      .locator('#estimate tbody tr')
      .evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent ?? '')));
    expect(estimateRows.map((r) => r[0])).toEqual([
      'estimated at the start (30 generations)',
      // A resumed run is estimated at the rates of its own finished generations.
      expect.stringMatching(
        /^estimated at the resume \(\d+ generations left\), at the rates of run steered$/,
      ),
      'so far',
      'to the end at this pace',
    ]);
    const callsOf = (row: string[] | undefined) => Number((row?.[1] ?? '').replaceAll(',', ''));
    expect(callsOf(estimateRows[3])).toBeGreaterThan(callsOf(estimateRows[2]));
    await page.click('#control-resume');
    await answered(page, 'resumed');
    await until(() => variants().length > atPause);
    await page.click('#control-stop-after');
    await answered(page, 'the generations under way finish, then the run stops');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('stopped when asked (stop-after)');
    expect(variants().length).toBeLessThan(31);
    expect(events('control')).toEqual([
      { action: 'pause' },
      { action: 'budget', value: 100 },
      { action: 'note', value: 'try smaller edits' },
      { action: 'resume' },
      { action: 'stop-after' },
    ]);
    // The run ended: its page has no controls left.
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobals).document.getElementById('run-controls') === null,
    );
  }, 600_000);

  it('steers a run with its own secret, printed by generate-loop and kept across --resume', async () => {
    const ownDir = path.join(runs, 'own');
    const run = startCli([
      ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '30', '--seed', '5'],
      ...['--eval-samples', '6', '--out', runs, '--run-id', 'own'],
    ]);
    expect(await waitFor(ownDir, run, { variant: 1, step: 'selected' })).toBe(true);
    const secret = readFileSync(controlSecretFile(ownDir), 'utf8').trim();
    expect(statSync(controlSecretFile(ownDir)).mode & 0o777).toBe(0o600);

    // A browser that has only this run's secret (not serve's token) steers this run (server.test.ts: no other).
    const bare = await open(`${server.url}/runs/own`);
    await bare.evaluate(() =>
      (globalThis as unknown as { localStorage: { clear(): void } }).localStorage.clear(),
    );
    await bare.close();
    const page = await open(`${server.url}/runs/own#secret=${secret}`);
    expect(page.url()).not.toContain(secret);
    await page.click('#control-pause');
    await answered(page, 'paused');
    await page.click('#control-stop-after');
    await answered(page, 'the generations under way finish, then the run stops');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`hyperagents serve --runs ${runs}`);
    expect(result.stderr).toContain(`/runs/own#secret=${secret}`);

    const resumed = await runCli('generate-loop', ['--resume', 'own', '--out', runs, '--generations', '1']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`/runs/own#secret=${secret}`);
    expect(readFileSync(controlSecretFile(ownDir), 'utf8').trim()).toBe(secret);
    await page.close();
  }, 600_000);
});
