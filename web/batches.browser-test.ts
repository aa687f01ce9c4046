import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, startCli } from '../test/kill-points.ts';
import { type RunningServer, startServer } from './server.ts';
import { launchChromium, openPage } from './testing/chromium.ts';

const runs = mkdtempSync(path.join(tmpdir(), 'browser-batches-'));
const runDir = path.join(runs, 'batched');

let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

/** The little of the page's globals the predicates below read (this project compiles without the DOM types). */
interface PageGlobals {
  document: { getElementById(id: string): { textContent: string | null; hidden: boolean } | null };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: () => boolean, timeoutMs = 240_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(100);
  }
}

const batchStates = () =>
  (readArchive(runDir, (db: Database.Database) =>
    db.prepare('SELECT state, provider_state FROM batches ORDER BY id').all(),
  ) ?? []) as { state: string; provider_state: string | null }[];

const text = async (page: Page, id: string) => (await page.locator(`#${id}`).textContent()) ?? '';

/** Waits until the element `id` says `wanted`. */
const says = (page: Page, id: string, wanted: string) =>
  page.waitForFunction(
    ([i, w]) =>
      ((globalThis as unknown as PageGlobals).document.getElementById(i!)?.textContent ?? '').includes(w!),
    [id, wanted],
    { timeout: 120_000 },
  );

beforeAll(async () => {
  server = await startServer({ runsDir: runs, pollMs: 200 });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(runs, { recursive: true, force: true });
});

describe("a --batch run's batches on its page, in headless Chromium", () => {
  it("shows a pending batch's state, requests done and wait, then the spend through batches and the saving", async () => {
    // Twelve single-reply tasks, answered by one simulated batch that stays pending for 15 s.
    const run = startCli([
      ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '0', '--seed', '5'],
      ...['--eval-samples', '6', '--eval-workers', '2', '--sim-price-per-mtok', '50', '--quiet'],
      ...['--batch', '--batch-poll', '1', '--sim-batch', 'ms=15000', '--out', runs, '--run-id', 'batched'],
    ]);
    await until(() => batchStates().some((b) => b.state === 'pending' && b.provider_state !== null));
    const page = await openPage(browser.context, `${server.url}/runs/batched`, { view: 'run' });

    const pending = await text(page, 'batch-pending');
    expect(pending).toMatch(
      /^Batch simbatch_\S+ \(variant 0, round 1\): in_progress, 0\/12 requests done, waiting \d+s$/,
    );
    // The wait counts on between the run's polls.
    const waited = () => text(page, 'batch-pending').then((t) => Number(/waiting (\d+)s/.exec(t)?.[1]));
    const before = await waited();
    // Seconds, rounded by the server and again on the page: 3.1 s later it shows at least 2 s more.
    await sleep(3_100);
    expect(await waited()).toBeGreaterThanOrEqual(before + 2);
    expect(await text(page, 'batches')).toContain('in_progress');

    const ended = await run.done;
    expect(ended.code, ended.stderr).toBe(0);
    await says(page, 'batch-spend', 'Through batches');
    const spend = await text(page, 'batch-spend');
    const [, paid, calls, saved] =
      /^Through batches: \$([\d.]+) in (\d+) model call\(s\) at the batch price, \$([\d.]+) less than/.exec(
        spend,
      ) ?? [];
    expect(Number(calls)).toBe(12);
    expect(Number(paid)).toBeGreaterThan(0);
    // Half price: it saved what it paid.
    expect(Number(saved)).toBeCloseTo(Number(paid), 4);
    expect(await page.locator('#batch-pending').isHidden()).toBe(true);
    expect(await page.locator('#batches tbody tr td').allTextContents()).toEqual([
      expect.stringMatching(/^simbatch_/),
      '0',
      '1',
      'ended',
      '12/12',
      '0',
      expect.stringMatching(/^\d+s$/),
    ]);
    await page.close();
  });

  it('shows no batch section for a run that used none', async () => {
    const run = startCli([
      ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '0', '--seed', '5'],
      ...['--eval-samples', '2', '--quiet', '--out', runs, '--run-id', 'plain'],
    ]);
    expect((await run.done).code).toBe(0);
    const page = await openPage(browser.context, `${server.url}/runs/plain`, { view: 'run' });
    expect(await page.locator('#batches-section').isHidden()).toBe(true);
    await page.close();
  });
});
