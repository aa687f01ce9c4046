import type { Hono } from 'hono';
import { type ArchiveReader, type RegressionGrid, regressionGrid } from '../archive/index.ts';
import { openRunById, withReader } from './data.ts';
import { unknownRun } from './responses.ts';

/** A run's task × variant grid (archive/regression-grid.ts): what each variant broke and fixed, task by task. */
export const runRegressions = (reader: ArchiveReader): RegressionGrid =>
  regressionGrid(reader.variants(), reader.taskOutcomes());

/**
 * `GET /api/runs/RUN/regressions`: the run's grid, fetched by its page apart from the run's data (it grows
 * with tasks × variants, and only the grid needs it), and again when a live update brings new variants.
 */
export function regressionsRoute(app: Hono, runsDir: string): void {
  app.get('/api/runs/:run/regressions', (c) => {
    const opened = openRunById(runsDir, c.req.param('run'));
    if (!opened.ok) return unknownRun(c, opened);
    return c.json(withReader(opened, runRegressions));
  });
}
