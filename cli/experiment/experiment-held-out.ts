import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ArchiveReader,
  archiveFile,
  heldOutOf,
  openArchiveReader,
  runFigures,
} from '../../archive/index.ts';
import { formatDomainRef } from '../../domains/index.ts';
import { parseStoredConfig } from '../../harness/run/index.ts';

const HYPERAGENTS = fileURLToPath(new URL('../../bin/hyperagents.mjs', import.meta.url));

/**
 * The held-out column of `hyperagents experiment`: after a run finishes, its reported best and its
 * variant 0 are evaluated on the test split (`hyperagents eval`, into the run's archive), which no agent
 * and no selection ever sees, so an improvement that does not transfer shows as a gain near zero.
 */

/** What a run's search spent: tasks outside the test split (each once per task code) and dollars. */
export function searchSpend(reader: ArchiveReader): { tasks: number; costUsd: number } {
  const figures = runFigures(reader);
  return {
    tasks: (figures?.tasksByGeneration ?? []).reduce((s, t) => s + t, 0),
    costUsd: figures?.costUsd ?? 0,
  };
}

export function heldOutScores(reader: ArchiveReader): { best: number | null; initial: number | null } {
  return heldOutOf(reader.variants(), reader.run()?.best?.id);
}

/** The variants of a finished run whose test score is missing, and how to evaluate them. */
function missing(runDir: string): { ids: number[]; domains: string[]; evalSamples: number | null } {
  const reader = openArchiveReader(archiveFile(runDir));
  try {
    const run = reader.run();
    const config = run === null ? null : parseStoredConfig(run.config);
    if (run === null || config === null) return { ids: [], domains: [], evalSamples: null };
    const held = heldOutScores(reader);
    const ids = [
      ...(held.initial === null ? [0] : []),
      ...(held.best === null && run.best !== null && run.best.id !== 0 ? [run.best.id] : []),
    ];
    return { ids, domains: config.domains.map(formatDomainRef), evalSamples: config.evalSamples };
  } finally {
    reader.close();
  }
}

/**
 * Evaluates the run's best and variant 0 on the test split where they have no test score yet (a rerun
 * evaluates only what is missing; the run's evaluation cache makes a repeat free). Output goes to
 * `${logBase}.held-out.log`. Returns null when done, else what failed.
 */
export async function evaluateHeldOut(
  runDir: string,
  logBase: string,
  signal: AbortSignal,
): Promise<string | null> {
  const todo = missing(runDir);
  for (const id of todo.ids) {
    if (signal.aborted) return 'stopped';
    const args = [
      'eval',
      `${runDir}:${id}`,
      '--domains',
      todo.domains.join(','),
      '--split',
      'test',
      '--runs',
      path.dirname(runDir),
      ...(todo.evalSamples === null ? [] : ['--eval-samples', String(todo.evalSamples)]),
    ];
    const code = await run(args, `${logBase}.held-out.log`, signal);
    if (code !== 0) return `the test-split evaluation of variant ${id} failed (exit ${code})`;
  }
  return null;
}

function run(args: readonly string[], logFile: string, signal: AbortSignal): Promise<number> {
  const out = openSync(logFile, 'a');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [HYPERAGENTS, ...args], { stdio: ['ignore', out, out] });
    const stop = () => child.kill('SIGINT');
    signal.addEventListener('abort', stop, { once: true });
    let settled = false;
    const finish = (code: number) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', stop);
      closeSync(out);
      resolve(code);
    };
    child.on('error', () => finish(1));
    child.on('exit', (code, sig) => finish(code ?? (sig ? 1 : 0)));
  });
}
