import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, startCli } from '../test/kill-points.ts';
import { type RunningServer, startServer } from './server.ts';
import { launchChromium } from './testing/chromium.ts';
import { contrast } from './testing/contrast.ts';

const runs = mkdtempSync(path.join(tmpdir(), 'browser-alerts-'));
const runDir = path.join(runs, 'watched');

/** Every MetaAgent looks and changes nothing: each generation is rejected, a streak of failures. */
const script = path.join(runs, 'script.json');
writeFileSync(script, JSON.stringify({ meta: Array.from({ length: 12 }, () => ['I changed nothing.']) }));

/** As test/notify.e2e.test.ts: slow calls, a short stall, a nominal price and a budget passed in a few generations. */
const RUN = [
  ...['--domains', 'arithmetic', '--model', 'sim', '--sim-script', script, '--generations', '12'],
  ...['--eval-samples', '6', '--sim-latency-ms', '800', '--sim-price-per-mtok', '100'],
  ...['--budget-usd', '0.8', '--stall-minutes', '0.01', '--out', runs, '--quiet', '--run-id', 'watched'],
];

/** A webhook on loopback that answers 500 to the first alert and 200 after. */
async function receiver() {
  let posts = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      posts++;
      res.writeHead(posts === 1 ? 500 : 200).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook/secret-path`, close: () => server.close() };
}

interface Row {
  type: string;
  message: string;
  deliveries: { target: string; state: string; text: string; errors: string[] }[];
}

/** The little of the page's globals the functions below read (this project compiles without the DOM types). */
interface El {
  textContent: string | null;
  dataset: Record<string, string>;
  children: ArrayLike<El>;
  querySelectorAll(selector: string): ArrayLike<El>;
}
interface PageGlobals {
  document: { getElementById(id: string): El | null; body: El };
  marked?: unknown;
}

const alertEvents = () =>
  (
    (readArchive(runDir, (db: Database.Database) =>
      db.prepare("SELECT data FROM events WHERE type = 'alert' ORDER BY id").all(),
    ) ?? []) as { data: string }[]
  ).map((e) => JSON.parse(e.data) as { type: string; message: string });

let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let hook: Awaited<ReturnType<typeof receiver>>;

beforeAll(async () => {
  hook = await receiver();
  server = await startServer({ runsDir: runs, pollMs: 200 });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  hook?.close();
  rmSync(runs, { recursive: true, force: true });
});

describe("a run's alerts on its page, in headless Chromium", () => {
  it('lists each alert as it is sent, and the delivery refused with a 500 and then retried', async () => {
    const run = startCli([...RUN, '--notify', hook.url]);
    const started = () =>
      readArchive(runDir, (db: Database.Database) => db.prepare('SELECT id FROM runs').get() !== undefined);
    while (started() !== true) await new Promise((resolve) => setTimeout(resolve, 50));

    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/runs/watched`);
    await page.waitForSelector('body[data-rendered="run"]');
    // Where the alerts go: the webhook by its origin, never its path (often its secret).
    const where = await page.locator('#alerts-targets').textContent();
    expect(where).toContain(`--notify ${new URL(hook.url).origin}/…`);
    expect(where).not.toContain('secret-path');
    const atLoad = await page.locator('#alerts tbody tr').count();
    // The table the page drew first stays: a live update patches it, it does not redraw the page.
    await page.evaluate(() => {
      (globalThis as unknown as PageGlobals).marked = (
        globalThis as unknown as PageGlobals
      ).document.getElementById('alerts');
    });

    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    // Its process logs the end's delivery after the run ended, then lets go of the run: the page follows.
    await page.waitForFunction(
      () => {
        const rows =
          (globalThis as unknown as PageGlobals).document
            .getElementById('alerts')
            ?.querySelectorAll('tbody tr') ?? [];
        const last = rows[rows.length - 1];
        return (
          last?.children[1]?.textContent === 'run_end' &&
          last.querySelectorAll('[data-state="delivered"]').length === 1
        );
      },
      undefined,
      { timeout: 60_000, polling: 100 },
    );
    const rows: Row[] = await page.evaluate(() =>
      Array.from(
        (globalThis as unknown as PageGlobals).document
          .getElementById('alerts')
          ?.querySelectorAll('tbody tr') ?? [],
      ).map((tr) => ({
        type: tr.children[1]?.textContent ?? '',
        message: tr.children[2]?.textContent ?? '',
        deliveries: Array.from(tr.querySelectorAll('.delivery')).map((d) => ({
          target: d.dataset.target ?? '',
          state: d.dataset.state ?? '',
          text: d.textContent ?? '',
          errors: Array.from(d.querySelectorAll('li')).map((li) => li.textContent ?? ''),
        })),
      })),
    );
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as PageGlobals).marked ===
          (globalThis as unknown as PageGlobals).document.getElementById('alerts'),
      ),
    ).toBe(true);
    expect(
      Number(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.body.dataset.updates)),
    ).toBeGreaterThan(0);
    expect(rows.length).toBeGreaterThan(atLoad);

    // Every alert the run logged, in order, with its message.
    const logged = alertEvents();
    expect(rows.map((r) => r.message)).toEqual(logged.map((a) => a.message));
    expect(rows.map((r) => r.type).filter((t) => !t.startsWith('stall'))).toEqual([
      'failure_streak',
      'budget 80 %',
      'budget 100 %',
      'run_end',
    ]);
    // The first (a stall) was refused with a 500 and got through on the second attempt; the rest at once.
    const [first, ...rest] = rows;
    expect(first?.type).toBe('stall');
    expect(first?.deliveries).toEqual([
      {
        target: 'notify',
        state: 'delivered',
        text: expect.stringContaining('delivered on attempt 2'),
        errors: [`attempt 1: ${new URL(hook.url).origin} answered HTTP 500`],
      },
    ]);
    for (const row of rest)
      expect(row.deliveries.map((d) => [d.state, d.errors])).toEqual([['delivered', []]]);

    // The delivery's words are readable on the table's white.
    const ok = await page
      .locator('#alerts .delivery-ok')
      .first()
      .evaluate(
        (el) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(el)
            .color,
      );
    expect(contrast(ok, 'rgb(255, 255, 255)')).toBeGreaterThanOrEqual(4.5);
    expect(errors).toEqual([]);
    await page.close();
  }, 600_000);
});
