import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveFile, openArchive } from '../archive/index.ts';
import { bundleRun } from '../cli/archive/archive-bundle.ts';
import { readArchive } from '../test/kill-points.ts';
import { runCli } from '../test/run-cli.ts';
import { buildReport } from './report.ts';
import { type RunningServer, startServer } from './server.ts';
import { launchChromium, openPage } from './testing/chromium.ts';

const runs = mkdtempSync(path.join(tmpdir(), 'browser-finished-'));
const out = mkdtempSync(path.join(tmpdir(), 'browser-finished-out-'));
const runDir = path.join(runs, 'finished');

let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let run: { costUsd: number; llmCalls: number };
let estimate: { calls: { low: number; high: number }; usd: { low: number; high: number } };

const downloadFolders = () => readdirSync(tmpdir()).filter((f) => f.startsWith('hyperagents-download-'));

const open = (url: string): Promise<Page> => openPage(browser.context, url, { view: 'run' });

beforeAll(async () => {
  const result = await runCli('generate-loop', [
    ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '2', '--eval-samples', '4'],
    ...['--sim-price-per-mtok', '3', '--out', runs, '--run-id', 'finished', '--quiet', '--json'],
  ]);
  expect(result.code, result.stderr).toBe(0);
  run = JSON.parse(result.stdout) as { costUsd: number; llmCalls: number };
  estimate = JSON.parse(
    (
      readArchive(runDir, (db: Database.Database) =>
        db.prepare("SELECT data FROM events WHERE type = 'estimate'").get(),
      ) as { data: string }
    ).data,
  );
  server = await startServer({
    runsDir: runs,
    pollMs: 200,
    bundle: (dir, file) => bundleRun(dir, file, { within: runs }),
  });
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(runs, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

const cells = (page: Page, row: number) =>
  page.locator(`#estimate tbody tr:nth-child(${row}) > *`).allTextContents();

describe("a finished run's page, in headless Chromium", () => {
  it('shows the estimate printed at the start beside what the run took', async () => {
    const page = await open(`${server.url}/runs/finished`);
    const usd = (n: number) => `$${n.toFixed(4)}`;
    expect(await cells(page, 1)).toEqual([
      'estimated at the start (2 generations)',
      `${estimate.calls.low}–${estimate.calls.high}`,
      `${usd(estimate.usd.low)}–${usd(estimate.usd.high)}`,
      expect.stringMatching(/^\d+ s–\d+ s$/),
    ]);
    const took = await cells(page, 2);
    expect(took.slice(0, 3)).toEqual(['what it took', String(run.llmCalls), usd(run.costUsd)]);
    expect(took[3]).toMatch(/^\d+ s$/);
    // A done run has nothing left to project.
    expect(await page.locator('#estimate tbody tr').count()).toBe(2);
    expect(await page.locator('#estimate-lines').textContent()).toContain('Estimate for 2 generations:');
    // No --notify: the page says alerts go nowhere and how to send them somewhere.
    expect(await page.locator('#alerts-none').textContent()).toContain('--notify URL');
    expect(await page.locator('#alerts').isVisible()).toBe(false);
    await page.close();
  });

  it('downloads the bundle of the run, which archive verify verifies', async () => {
    const page = await open(`${server.url}/runs/finished`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#bundle-download')]);
    expect(download.suggestedFilename()).toBe('finished.tar.gz');
    const file = path.join(out, download.suggestedFilename());
    await download.saveAs(file);
    expect(await download.failure()).toBeNull();
    // The bundle was written to a temporary folder, and nothing of it is left there.
    expect(downloadFolders()).toEqual([]);
    const verified = await runCli('hyperagents', ['archive', 'verify', file]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/Files: all \d+ match the manifest's sha256/);
    expect(verified.stdout).toContain('The same: 3 variants');
    await page.close();
  }, 300_000);

  it('answers a run it cannot bundle, or one not in the runs folder, in one plain line', async () => {
    writeFileSync(path.join(runs, 'outside.txt'), 'x');
    for (const [route, status, text] of [
      ['/api/runs/..%2Foutside.txt/bundle', 404, 'No such run here. The runs are: finished.'],
      ['/api/runs/nope/bundle', 404, 'No such run here. The runs are: finished.'],
    ] as const) {
      const answer = await fetch(`${server.url}${route}`);
      expect(answer.status).toBe(status);
      expect((await answer.text()).trim()).toBe(text);
    }
    // A run folder whose run never started: said in one line, no stack trace, nothing left behind.
    mkdirSync(path.join(runs, 'empty'));
    openArchive(archiveFile(path.join(runs, 'empty'))).close();
    const empty = await fetch(`${server.url}/api/runs/empty/bundle`);
    expect(empty.status).toBe(500);
    const said = await empty.text();
    expect(said).toMatch(/^Cannot make the bundle of run empty: .* holds no run yet \(it never started\)/);
    expect(said.trim().split('\n')).toHaveLength(1);
    expect(downloadFolders()).toEqual([]);
    rmSync(path.join(runs, 'empty'), { recursive: true });
    const bare = await startServer({ runsDir: runs });
    try {
      const answer = await fetch(`${bare.url}/api/runs/finished/bundle`);
      expect(answer.status).toBe(404);
      expect(await answer.text()).toMatch(
        /^This server does not make bundles: use hyperagents archive bundle/,
      );
    } finally {
      await bare.close();
    }
  });

  it('names the bundle command in the offline report, which has no server to download from', async () => {
    const file = path.join(out, 'report.html');
    writeFileSync(file, await buildReport([{ id: 'finished', dir: runDir }]));
    const page = await browser.context.newPage();
    await page.goto(`${pathToFileURL(file).href}#/runs/finished`);
    await page.waitForSelector('body[data-rendered="run"]');
    expect(await page.locator('#bundle-download').count()).toBe(0);
    expect(await page.locator('.bundle').textContent()).toContain(
      'hyperagents archive bundle finished -o finished.tar.gz',
    );
    expect(await page.locator('#estimate tbody tr').count()).toBe(2);
    await page.close();
  });
});
