import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastLines, runToCompletion } from './processes.ts';
import type { CommandSpec } from './task-workers.ts';
import type { DiffSummary } from './variant-repo.ts';

const TSC = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));

export type GateResult = { ok: true } | { ok: false; reason: string };

/** The child must differ from its parent and touch only `agents/`. Pure. */
export function checkDiff(diff: DiffSummary | null): GateResult {
  if (diff === null || diff.files.length === 0) return { ok: false, reason: 'the MetaAgent changed nothing' };
  if (diff.outside.length > 0) {
    return { ok: false, reason: `changed files outside agents/: ${diff.outside.slice(0, 5).join(', ')}` };
  }
  return { ok: true };
}

export async function typecheck(worktree: string, logFile: string): Promise<GateResult> {
  const result = await runToCompletion(
    {
      file: process.execPath,
      args: [TSC, '--noEmit', '-p', worktree],
      env: { PATH: process.env.PATH ?? '' },
      cwd: worktree,
    },
    180_000,
    logFile,
  );
  if (result.exitCode === 0) return { ok: true };
  return {
    ok: false,
    reason: result.timedOut ? 'typecheck timed out' : `typecheck failed: ${firstErrors(result.tail)}`,
  };
}

/** The first few compiler errors on one line; the whole output is in the gate log. */
function firstErrors(output: string): string {
  const errors = output.split('\n').filter((line) => line.includes('error TS'));
  const shown = errors.slice(0, 3).join('; ');
  return errors.length > 3 ? `${shown}; and ${errors.length - 3} more` : shown || lastLines(output, 3);
}

/** Loads an entry point with `--check`: it must import everything it needs and exit 0. */
export async function loadsEntryPoint(command: CommandSpec, logFile: string): Promise<GateResult> {
  const result = await runToCompletion(command, 60_000, logFile);
  if (result.exitCode === 0) return { ok: true };
  const entry = command.args.find((a) => a.endsWith('.ts')) ?? 'entry point';
  return {
    ok: false,
    reason: `${path.basename(path.dirname(entry))}/${path.basename(entry)} --check ${result.timedOut ? 'timed out' : `exited ${result.exitCode}`}: ${lastLines(result.tail, 3)}`,
  };
}
