import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readArchive } from './kill-points.ts';
import { start, until } from './processes.ts';
import { runCli } from './run-cli.ts';

/** How `archive list` reads a run whose process was killed, and one resumed with fewer generations. */

const out = mkdtempSync(path.join(tmpdir(), 'run-state-'));
const runDir = path.join(out, 'r');
afterAll(() => rmSync(out, { recursive: true, force: true }));

const list = async (...args: string[]) => {
  const result = await runCli('hyperagents', ['archive', 'list', ...args, '--runs', out]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
};

/** The command that starts generate-loop again, as the CLI prints it under npm (npx) or not (the script). */
const loop = '(?:npx generate-loop|generate-loop|node \\S+ generate-loop|node \\S+generate-loop\\.mjs)';
const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The row of run `r` in the run list, its cells split on runs of spaces. */
const row = (table: string): string[] =>
  table
    .split('\n')
    .find((line) => line.startsWith('r '))!
    .split(/\s{2,}/);

describe('archive list', () => {
  it('shows a run whose process was killed with SIGKILL as interrupted, with the command that continues it', async () => {
    const run = start('generate-loop', [
      ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '3', '--out', out, '--run-id', 'r'],
    ]);
    // Killed once generation 3 is under way.
    await until('generation 3 under way', () =>
      readArchive(runDir, (db) => db.prepare('SELECT id FROM variants WHERE id = 3').get() !== undefined),
    );
    run.child.kill('SIGKILL');
    await run.done;
    const table = await list();
    expect(row(table).slice(0, 2)).toEqual(['r', 'interrupted']);
    expect(table).toMatch(new RegExp(`\\n  ${loop} --resume ${literal(runDir)}\\n?`));
    expect(await list('r')).toMatch(
      new RegExp(
        'The run was interrupted: the process running it ended without stopping it. Continue it with: ' +
          `${loop} --resume ${literal(runDir)}`,
      ),
    );
    const json = JSON.parse(await list('--json')) as { id: string; state: string }[];
    expect(json.find((r) => r.id === 'r')?.state).toBe('interrupted');
  });

  it('reads a run resumed with fewer --generations than it had started correctly, and finishes it later', async () => {
    const resumed = await runCli('generate-loop', ['--resume', runDir, '--generations', '2']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(row(await list()).slice(0, 2)).toEqual(['r', 'done']);
    expect(row(await list())[4]).toBe('2/2 +1 beyond');
    const variants = await list('r');
    expect(variants).toMatch(/^3\s+\d\s+unfinished\s/m);
    expect(variants).toMatch(
      new RegExp(
        'Variant 3 was started before the run was resumed with --generations 2 and is left unfinished; to ' +
          `finish it: ${loop} --resume ${literal(runDir)} --generations 3`,
      ),
    );
    const finished = await runCli('generate-loop', ['--resume', runDir, '--generations', '3']);
    expect(finished.code, finished.stderr).toBe(0);
    expect(row(await list())[4]).toBe('3/3');
    expect(await list('r')).not.toMatch(/unfinished|in_progress/);
  });
});
