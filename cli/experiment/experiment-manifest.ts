import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../shared/usage-error.ts';

/** experiment.json: what the folder's runs were started with, so a rerun resumes the same experiment. */
export const Manifest = z.object({
  seeds: z.array(z.number().int()),
  configs: z.array(z.object({ name: z.string(), args: z.array(z.string()) })),
  loopArgs: z.array(z.string()),
});
export type Manifest = z.infer<typeof Manifest>;

export const MANIFEST = 'experiment.json';

export function readManifest(dir: string, command: 'experiment' | 'experiment report'): Manifest | null {
  const file = path.join(dir, MANIFEST);
  if (!existsSync(file)) return null;
  let why: string | null = null;
  try {
    const parsed = Manifest.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (parsed.success) return parsed.data;
    why = 'it is not an experiment record this version can read';
  } catch (error) {
    why =
      error instanceof SyntaxError
        ? `it is not valid JSON: ${error.message}`
        : `it cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
  throw new UsageError(
    `${file} is damaged (${why}). It records the seeds, configurations and shared options of the ` +
      "experiment's runs. Restore it, or delete it and run hyperagents experiment again with the options the " +
      'experiment was started with: finished runs are kept and reused, unfinished ones resumed' +
      (command === 'experiment report' ? '; then run the report again.' : '. Or use another --out folder.'),
  );
}

/**
 * The manifest of this invocation merged with the one already in the folder: seeds and configurations
 * may be added, but shared options and an existing configuration's options must stay the same, since
 * finished runs are kept.
 */
export function mergeManifest(stored: Manifest | null, wanted: Manifest, dir: string): Manifest {
  if (stored === null) return wanted;
  const same = (a: readonly string[], b: readonly string[]) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(stored.loopArgs, wanted.loopArgs)) {
    throw new UsageError(
      `${dir} holds an experiment run with other generate-loop options (${stored.loopArgs.join(' ') || 'none'}; ` +
        `now ${wanted.loopArgs.join(' ') || 'none'}). Its finished runs would not compare; use another --out folder.`,
    );
  }
  const configs = [...stored.configs];
  for (const c of wanted.configs) {
    const old = configs.find((o) => o.name === c.name);
    if (old === undefined) configs.push(c);
    else if (!same(old.args, c.args)) {
      throw new UsageError(
        `${dir} already has configuration "${c.name}" with options "${old.args.join(' ')}", not "${c.args.join(' ')}". ` +
          'Give the new one another name, or use another --out folder.',
      );
    }
  }
  const seeds = [...stored.seeds, ...wanted.seeds.filter((s) => !stored.seeds.includes(s))];
  return { seeds, configs, loopArgs: stored.loopArgs };
}
