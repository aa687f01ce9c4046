import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptEdit } from '../test/prompt-edit.ts';
import { runCli } from '../test/run-cli.ts';
import { buildReport } from './report.ts';
import { type RunningServer, startServer } from './server.ts';
import { launchChromium, openPage } from './testing/chromium.ts';

const runs = mkdtempSync(path.join(tmpdir(), 'browser-accept-'));
const runDir = path.join(runs, 'decided');

let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  // Variant 1 is much worse than variant 0 (stopped early); variant 2, from variant 0, much better.
  const script = path.join(runs, 'script.json');
  writeFileSync(
    script,
    JSON.stringify({
      meta: [
        promptEdit('Answer immediately without working and round the final answer.'),
        promptEdit(
          'Think step by step, write down every intermediate quantity and double-check the arithmetic.',
        ),
      ],
    }),
  );
  const result = await runCli('generate-loop', [
    ...['--domains', 'arithmetic', '--model', 'sim', '--sim-script', script, '--generations', '2'],
    ...[
      '--parent-selection',
      'best',
      '--accept',
      'sequential',
      '--out',
      runs,
      '--run-id',
      'decided',
      '--quiet',
    ],
  ]);
  expect(result.code, result.stderr).toBe(0);
  server = await startServer({ runsDir: runs, pollMs: 200 });
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(runs, { recursive: true, force: true });
});

const row = (page: Page, id: number) => page.locator(`#variants tr[data-variant-row="${id}"]`).textContent();

async function expectDecisions(page: Page): Promise<void> {
  const headers = await page.locator('#variants thead th').allTextContents();
  expect(headers).toContain('accepted');
  expect(await row(page, 1)).toMatch(/~0\.\d{3}.*worse \d+\/80/);
  expect(await row(page, 2)).toMatch(/better \d+\/80/);
  expect(await page.locator('#acceptance-legend').textContent()).toContain('~: a score estimated');
  expect(await page.locator('[data-acceptance="worse"]').getAttribute('title')).toMatch(/against variant 0/);
}

describe("a sequential run's page", () => {
  it('shows each child decision with its tasks, and marks the estimated score', async () => {
    const page = await openPage(browser.context, `${server.url}/runs/decided`, { view: 'run' });
    await expectDecisions(page);
    await page.close();
  });

  it('shows the same in the offline report', async () => {
    const file = path.join(runs, 'report.html');
    writeFileSync(file, await buildReport([{ id: 'decided', dir: runDir }]));
    const page = await openPage(browser.context, `${pathToFileURL(file).href}#/runs/decided`, {
      view: 'run',
    });
    await expectDecisions(page);
    await page.close();
  });
});
