import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { archiveFile, evalCacheFile, openArchiveReader } from '../../archive/index.ts';
import { InitialAgentError, killAll } from '../../harness/process/index.ts';
import {
  duration,
  type EstimateFigures,
  historyRates,
  loadDomainTasks,
  ModelUnreachableError,
  type RunConfig,
  type RunSummary,
  runEstimate,
  runGenerations,
  stageCounts,
  usdText,
} from '../../harness/run/index.ts';
import { reportError } from '../shared/errors.ts';
import { abortExitCode, describeStop, watchStops } from '../shared/stop-signals.ts';
import { UsageError } from '../shared/usage-error.ts';
import type { PilotFlags } from './loop-args.ts';
import { runDeps } from './loop-deps.ts';
import { type PreparedRun, planOrRefuse } from './loop-prepare.ts';
import { createProgress } from './progress.ts';

/**
 * `generate-loop --estimate --pilot N`: a short real run of the command's configuration (its models, domains,
 * sandbox and options) of N generations on a few tasks per domain, in a temporary folder that is removed
 * after, also on Ctrl-C and on failure. Its archive gives the estimate's rates, as an earlier run's does with
 * `--estimate-from`. What is printed, and the exit code.
 */
export async function pilotEstimate(prepared: PreparedRun, pilot: PilotFlags): Promise<PilotResult> {
  // The run will start up again as this command did, up to its pilot (measured here, as --estimate-from does).
  const startupSec = process.uptime();
  const folder = mkdtempSync(path.join(tmpdir(), 'hyperagents-pilot-'));
  const remove = (): void => rmSync(folder, { recursive: true, force: true });
  // The first Ctrl-C stops the pilot cleanly (its folder is removed after); a second one at once.
  const stops = watchStops({
    first(cause) {
      process.stderr.write(
        `\n${describeStop(cause)}: stopping the pilot (press Ctrl-C again to abort at once).\n`,
      );
    },
    again(cause) {
      killAll();
      remove();
      process.stderr.write('\nAborted; the pilot left nothing behind.\n');
      process.exit(abortExitCode(cause));
    },
  });
  try {
    const run = await pilotRun(prepared, pilot, folder);
    if (!prepared.quiet)
      process.stderr.write(
        `Pilot: ${pilot.generations} generation(s) on ${run.tasks} task(s), in a temporary folder removed after ` +
          `(at most ${usdText(run.config.budgetUsd ?? 0)}); Ctrl-C stops it.\n`,
      );
    const started = performance.now();
    const summary = await runGenerations(
      run,
      runDeps(run, createProgress(process.stderr, true), null, stops.signal),
    );
    const seconds = (performance.now() - started) / 1000;
    if (summary.stopped === 'interrupted') {
      process.stderr.write(
        'generate-loop: the pilot was interrupted; nothing was estimated and nothing is left.\n',
      );
      return { code: 130, lines: [], figures: null };
    }
    return pilotLines(prepared, pilot, run, summary, { seconds, startupSec });
  } catch (error) {
    if (error instanceof ModelUnreachableError || error instanceof InitialAgentError) {
      process.stderr.write(`generate-loop: the pilot failed: ${error.message}\n`);
      return { code: 1, lines: [], figures: null };
    }
    return { code: reportError(error, 'generate-loop'), lines: [], figures: null };
  } finally {
    stops.dispose();
    remove();
  }
}

type PilotRun = PreparedRun & { tasks: number };

/** What `--estimate --pilot` prints (`figures` with --json: the estimate and what the pilot spent), and its exit code. */
export interface PilotResult {
  code: number;
  lines: string[];
  figures:
    | (EstimateFigures & {
        pilot: {
          generations: number;
          tasks: number;
          calls: number;
          usd: number;
          seconds: number;
          capUsd: number;
          stopped: string | null;
        };
      })
    | null;
}

/**
 * The pilot's run: the command's configuration on at most `pilot.tasks` tasks per split, capped at the pilot's
 * budget and the command's, recording nothing, alerting no one, and measuring no noise floor and confirming
 * nothing (the estimate scales those from the configuration).
 */
async function pilotRun(prepared: PreparedRun, pilot: PilotFlags, folder: string): Promise<PilotRun> {
  const full = prepared.config;
  const config: RunConfig = {
    ...full,
    generations: pilot.generations,
    evalSamples: Math.min(full.evalSamples ?? Number.POSITIVE_INFINITY, pilot.tasks),
    budgetUsd: Math.min(full.budgetUsd ?? Number.POSITIVE_INFINITY, pilot.budgetUsd),
    noiseFloor: 0,
    confirmTop: 0,
    record: null,
    notifyUrl: null,
    notifyCmd: null,
  };
  const domains = await loadDomainTasks(config);
  if ('error' in domains) throw new UsageError(domains.error);
  const counts = stageCounts(domains, config.evalTest).full;
  return {
    ...prepared,
    config,
    mode: 'new',
    runId: 'pilot',
    runDir: path.join(folder, 'pilot'),
    cacheFile: evalCacheFile(folder),
    quiet: true,
    plan: planOrRefuse(config, prepared.env),
    domains,
    replay: null,
    tasks: counts.plain + counts.workspace,
  };
}

/** The estimate at the pilot's rates, then what the pilot was and spent. */
function pilotLines(
  prepared: PreparedRun,
  pilot: PilotFlags,
  run: PilotRun,
  summary: RunSummary,
  { seconds, startupSec }: { seconds: number; startupSec: number },
): PilotResult {
  const reader = openArchiveReader(archiveFile(run.runDir));
  const rates = (() => {
    try {
      return historyRates(reader);
    } finally {
      reader.close();
    }
  })();
  const spent = `${summary.llmCalls.toLocaleString('en-US')} model calls, ${usdText(summary.costUsd)}, ${duration(seconds)}`;
  if (rates === null) {
    process.stderr.write(
      `generate-loop: the pilot finished no generation to measure (${summary.stopped ?? 'its generations failed'}; ` +
        `it made ${spent}). Raise --pilot-budget-usd, or give --pilot more generations.\n`,
    );
    return { code: 1, lines: [], figures: null };
  }
  const { config, domains } = prepared;
  // The pilot's spend counts against the budget: the run has what is left of it.
  const budgetUsd = config.budgetUsd === null ? null : Math.max(0, config.budgetUsd - summary.costUsd);
  const source = `a pilot on ${run.tasks} task(s)`;
  const { lines, figures } = runEstimate(
    { ...config, budgetUsd },
    domains,
    null,
    { rates, source },
    startupSec,
  );
  const cap =
    config.budgetUsd !== null && config.budgetUsd < pilot.budgetUsd ? '--budget-usd' : '--pilot-budget-usd';
  lines.push(
    `  The pilot: ${pilot.generations} generation(s) on ${run.tasks} task(s) (at most ${pilot.tasks} per split of ` +
      `each domain), in a temporary folder now removed, made ${spent}, under its cap of ` +
      `${usdText(run.config.budgetUsd ?? 0)} (${cap})` +
      (config.budgetUsd === null ? '.' : '; that spend counts against --budget-usd above.') +
      (summary.stopped === null
        ? ''
        : ` It stopped early (${summary.stopped}): the generation it cut short counts as failed, so the ` +
          'estimate is low. Give the pilot more with --pilot-budget-usd (and --budget-usd).'),
  );
  const pilotFigures = {
    generations: pilot.generations,
    tasks: run.tasks,
    calls: summary.llmCalls,
    usd: summary.costUsd,
    seconds,
    capUsd: run.config.budgetUsd ?? 0,
    stopped: summary.stopped,
  };
  return { code: 0, lines, figures: { ...figures, pilot: pilotFigures } };
}
