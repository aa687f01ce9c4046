import type { Hono } from 'hono';
import { runFigures, runFlags } from '../archive/index.ts';
import { compareRuns, parseCompareChoice } from './compare.ts';
import { openRunById, runPage } from './data.ts';
import { unknownRun } from './responses.ts';

/**
 * Runs side by side, with the figures that compare them: `runs=ID,...`, and the view's choices (groups
 * `a`/`b`, `short=include`, `test=` a direction), checked, as compare.ts reads them.
 */
export function compareRoute(app: Hono, runsDir: string): void {
  app.get('/api/compare', async (c) => {
    const ids = (c.req.query('runs') ?? '').split(',').filter((s) => s !== '');
    const parsed = parseCompareChoice((key) => c.req.query(key), ids);
    if (!parsed.ok) return c.json({ error: parsed.error }, 400);
    const runs = [];
    for (const id of ids) {
      const opened = openRunById(runsDir, id);
      if (!opened.ok) return unknownRun(c, opened);
      let page: (NonNullable<ReturnType<typeof runPage>> & { figures: ReturnType<typeof runFigures> }) | null;
      try {
        const r = opened.reader;
        const p = runPage(r);
        const figures = runFigures(r);
        // The same count of variants flagged for reward hacking as `experiment` shows.
        const flagged = figures === null ? [] : await runFlags(r, opened.dir, r.variants());
        const flags = new Set(flagged.map((f) => f.variantId)).size;
        page = p === null ? null : { ...p, figures: figures === null ? null : { ...figures, flags } };
      } finally {
        opened.reader.close();
      }
      if (page !== null) runs.push(page);
    }
    return c.json({ runs: runs.map((r) => r.run), comparison: compareRuns(runs, parsed.choice) });
  });
}
