import type { Context } from 'hono';
import type { Opened } from './data.ts';

/** The 404 of a run the runs folder does not hold, naming those it does. */
export const unknownRun = (c: Context, opened: Extract<Opened, { ok: false }>) =>
  c.json({ error: `no such run; runs: ${opened.known.join(', ') || 'none'}`, known: opened.known }, 404);
