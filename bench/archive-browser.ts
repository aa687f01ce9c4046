import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { median } from '../archive/stats.ts';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { startServer } from '../web/server.ts';
import { launchChromium } from '../web/testing/chromium.ts';

/**
 * Time to first render of the run page (from navigation start, as the page's own clock tells, until the
 * score chart, the spend chart, the lineage tree and the variant table are drawn) in headless Chromium, for runs of 50 and of 1,000 variants
 * generated directly into archives, measured alternately so both see the same machine load.
 * Returns report lines.
 */
export async function benchArchiveBrowser(sizes = [50, 1000], rounds = 5): Promise<string[]> {
  const runs = mkdtempSync(path.join(tmpdir(), 'bench-browser-'));
  for (const n of sizes) writeSyntheticRun(runs, { id: `run-${n}`, variants: n, seed: n });
  const server = await startServer({ runsDir: runs });
  const browser = await launchChromium();
  const times = new Map<number, number[]>(sizes.map((n) => [n, []]));
  const api = new Map<number, number[]>(sizes.map((n) => [n, []]));
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
  return lines;
}
