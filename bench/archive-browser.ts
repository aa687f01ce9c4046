import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { median } from '../archive/index.ts';
import { addSyntheticVariants, writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { startServer } from '../web/server.ts';
import { launchChromium } from '../web/testing/chromium.ts';

/** New variants added to a live run, one at a time, each waited for on the page. */
const LIVE_VARIANTS = 10;

/**
 * Time to first render of the run page (from navigation start, as the page's own clock tells, until the
 * score chart, the spend chart, the lineage tree and the variant table are drawn) in headless Chromium, for runs of 50 and of 1,000 variants
 * generated directly into archives, measured alternately so both see the same machine load; then the
 * bytes a live run's page transfers (bodies as sent, compressed, and headers, from Chromium's network
 * events) per new variant while variants are added to its archive. Returns report lines.
 */
export async function benchArchiveBrowser(sizes = [50, 1000], rounds = 5): Promise<string[]> {
  const runs = mkdtempSync(path.join(tmpdir(), 'bench-browser-'));
  for (const n of sizes) writeSyntheticRun(runs, { id: `run-${n}`, variants: n, seed: n });
  for (const n of sizes)
    writeSyntheticRun(runs, { id: `live-${n}`, variants: n, seed: n, status: 'running' });
  const server = await startServer({ runsDir: runs, pollMs: 250 });
  const browser = await launchChromium();
  const times = new Map<number, number[]>(sizes.map((n) => [n, []]));
  const api = new Map<number, number[]>(sizes.map((n) => [n, []]));
  const live = new Map<number, Transferred>();
  try {
    const page = await browser.context.newPage();
    for (let round = 0; round < rounds + 1; round++) {
      for (const n of sizes) {
        await page.goto(`${server.url}/runs/run-${n}`);
        await page.waitForSelector('body[data-rendered="run"] #tree a.node', { timeout: 600_000 });
        const rendered = Number(await page.getAttribute('body', 'data-first-render-ms'));
        const a0 = performance.now();
        await (await fetch(`${server.url}/api/runs/run-${n}`)).json();
        const a1 = performance.now();
        if (round === 0) continue; // warm-up: first load of the libraries
        times.get(n)!.push(rendered);
        api.get(n)!.push(a1 - a0);
      }
    }
    await page.close();
    for (const n of sizes) live.set(n, await liveBytes(await browser.context.newPage(), server.url, runs, n));
  } finally {
    await browser.close();
    await server.close();
    rmSync(runs, { recursive: true, force: true });
  }
  const base = median(times.get(sizes[0]!)!)!;
  const lines = [
    `Run page, time to first render in headless Chromium (median of ${rounds}; charts, tree and table drawn)`,
  ];
  for (const n of sizes) {
    const t = median(times.get(n)!)!;
    lines.push(
      `  ${String(n).padStart(5)} variants  ${t.toFixed(0).padStart(6)} ms  (its data from the server: ${median(api.get(n)!)!.toFixed(0)} ms)  ${(t / base).toFixed(2)}x the ${sizes[0]}-variant page`,
    );
  }
  const liveBase = live.get(sizes[0]!)!;
  lines.push(
    `Live run page, bytes transferred per new variant (${LIVE_VARIANTS} variants added one at a time, the page polling every 250 ms)`,
  );
  for (const n of sizes) {
    const t = live.get(n)!;
    const per = t.total / LIVE_VARIANTS;
    lines.push(
      `  ${String(n).padStart(5)} variants  ${(per / 1024).toFixed(1).padStart(6)} KB  (updates ${(t.updates / LIVE_VARIANTS / 1024).toFixed(1)} KB, ${t.requests} requests in all)  ${(per / (liveBase.total / LIVE_VARIANTS)).toFixed(2)}x the ${sizes[0]}-variant page`,
    );
  }
  return lines;
}

interface Transferred {
  /** Bytes of every response (body as sent and headers) after the first render. */
  total: number;
  /** Of those, the run's updates (`.../update?...`). */
  updates: number;
  requests: number;
}

/** Opens live run `live-N`, then adds LIVE_VARIANTS variants one by one, each shown before the next. */
async function liveBytes(page: Page, url: string, runsDir: string, n: number): Promise<Transferred> {
  await page.goto(`${url}/runs/live-${n}`);
  await page.waitForSelector('body[data-rendered="run"] #tree a.node', { timeout: 600_000 });
  const seen: Transferred = { total: 0, updates: 0, requests: 0 };
  const pending: Promise<void>[] = [];
  page.on('requestfinished', (request) => {
    pending.push(
      request.sizes().then((sizes) => {
        const bytes = sizes.responseBodySize + sizes.responseHeadersSize;
        seen.total += bytes;
        seen.requests++;
        if (request.url().includes('/update?')) seen.updates += bytes;
      }),
    );
  });
  for (let k = 1; k <= LIVE_VARIANTS; k++) {
    addSyntheticVariants(path.join(runsDir, `live-${n}`), 1, { seed: n });
    // The router counts the updates it drew (body data-updates).
    await page.waitForSelector(`body[data-updates="${k}"]`, { timeout: 600_000 });
  }
  await Promise.all(pending);
  await page.close();
  return seen;
}
