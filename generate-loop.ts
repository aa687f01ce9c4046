import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { openEvalCache } from './archive/eval-cache.ts';
import { reportError } from './cli/errors.ts';
import { type LoopConfig, loopHelp, parseLoopArgs } from './cli/loop-args.ts';
import { createProgress } from './cli/progress.ts';
import { renderSummary } from './cli/summary-table.ts';
import { UsageError } from './cli/usage-error.ts';
import { assertWritableDir } from './cli/writable.ts';
import { listDomainNames } from './domains/discover.ts';
import { ModelUnreachableError, type RetryNotice } from './harness/first-contact.ts';
import { gatewayFactory } from './harness/gateway-wiring.ts';
import { defaultRunId, loadDomainTasks, runExists, runLoop } from './harness/run.ts';
import { resolveSandbox } from './harness/sandbox.ts';
import { loadEnv } from './llm/env.ts';
import { providerSettings } from './llm/providers/index.ts';
import { loadReplayBook, type ReplayBook } from './llm/recorder.ts';
import { resolveModel } from './llm/registry.ts';
import { loadSimScript } from './llm/sim/script.ts';

const SIM_BANNER =
  'Model: sim (SIMULATED). The offline simulated model answers every call: the loop, git lineage and\n' +
  'archive are real; the scores show how selection works, not how good a real model is.';

function checkModel(id: string): string | null {
  const resolved = resolveModel(id);
  return resolved.ok ? null : resolved.error.message;
}

/** Without --model: the first provider whose key is set, in this order; else the simulated model. */
export const DEFAULT_MODELS: readonly { model: string; key: string }[] = [
  { model: 'anthropic/claude-sonnet-4-6', key: 'ANTHROPIC_API_KEY' },
  { model: 'openai/gpt-5-mini', key: 'OPENAI_API_KEY' },
  { model: 'google/gemini-2.5-flash', key: 'GEMINI_API_KEY' },
];

export function defaultModel(env: Readonly<Record<string, string | undefined>>): {
  model: string;
  key?: string;
} {
  return DEFAULT_MODELS.find((d) => env[d.key]) ?? { model: 'sim' };
}

function assertGitInstalled(): void {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new UsageError(
      'git is not installed: every agent variant is a git commit. Install git and run again.',
    );
  }
}

/** Every real model the run calls needs its key; replayed runs call none. */
function assertKeys(config: LoopConfig, env: Readonly<Record<string, string | undefined>>): void {
  if (config.replay !== null) return;
  for (const id of new Set([config.metaModel, config.taskModel])) {
    const resolved = resolveModel(id);
    if (!resolved.ok || resolved.model.simulated) continue;
    const settings = providerSettings(resolved.model, env);
    if (!settings.ok) throw new UsageError(settings.message);
  }
}

/** The result cache beside the runs is checked before the run folder is made, so a bad one leaves nothing. */
function assertCacheReadable(file: string): void {
  if (!existsSync(file)) return;
  try {
    openEvalCache(file).close();
  } catch (error) {
    throw new UsageError(
      `The result cache ${file} cannot be opened (${(error as Error).message}). It only saves paying twice ` +
        'for the same task results: move it away or delete it, and a new one is made.',
    );
  }
}

function assertRecordable(file: string): void {
  if (existsSync(file)) {
    throw new UsageError(
      `--record ${file} already exists. A recording is written to a new file: choose another name, or ` +
        'delete the old recording first.',
    );
  }
  assertWritableDir(path.dirname(file), '--record');
}

function openReplay(file: string): ReplayBook {
  if (!existsSync(file)) {
    throw new UsageError(
      `--replay ${file}: no such file. Give a recording written by an earlier run with --record FILE.`,
    );
  }
  try {
    return loadReplayBook(file);
  } catch (error) {
    throw new UsageError(`--replay: ${(error as Error).message}`);
  }
}

/** Validates everything that can be checked before the run folder is written. */
async function prepare(argv: string[]) {
  const env = loadEnv();
  const fallback = defaultModel(env);
  const config = await parseLoopArgs(argv, {
    domains: listDomainNames(),
    checkModel,
    defaultModel: fallback.model,
  });
  if (config === 'help') return 'help' as const;
  assertKeys(config, env);
  if (config.record !== null) assertRecordable(config.record);
  const replay = config.replay === null ? null : openReplay(config.replay);
  assertWritableDir(config.out, '--out');
  assertGitInstalled();
  const runId = config.runId ?? defaultRunId();
  if (runExists(config.out, runId)) {
    throw new UsageError(`A run named "${runId}" already exists in ${config.out}. Choose another --run-id.`);
  }
  assertCacheReadable(path.join(config.out, 'eval-cache.sqlite'));
  const sandbox = resolveSandbox(config.sandbox);
  if (sandbox.kind === 'missing') {
    throw new UsageError(
      '--sandbox bwrap was asked for, but bubblewrap does not work here. Install it (Debian/Ubuntu: ' +
        'apt-get install bubblewrap) or pass --sandbox auto or none.',
    );
  }
  const simulated = [config.metaModel, config.taskModel].every((id) => id === 'sim');
  if (sandbox.kind === 'none' && !simulated && config.sandbox !== 'none') {
    throw new UsageError(
      `Agents would run real models without a sandbox (${sandbox.why}). Install bubblewrap, or pass ` +
        '--sandbox none to accept running agent-written code unsandboxed.',
    );
  }
  let script: ReturnType<typeof loadSimScript> | undefined;
  if (config.simScript !== null) {
    try {
      script = loadSimScript(config.simScript);
    } catch (error) {
      throw new UsageError(`--sim-script: ${(error as Error).message}`);
    }
  }
  const domains = await loadDomainTasks(config);
  const chosen =
    fallback.key !== undefined && [config.metaModel, config.taskModel].includes(fallback.model)
      ? `Model: ${fallback.model}, chosen because ${fallback.key} is set. Pass --model to choose another ` +
        '(--model sim runs offline at no cost; hyperagents models lists them).'
      : null;
  return { config, runId, sandbox, simulated, script, domains, env, replay, chosen };
}

export async function main(argv: string[]): Promise<number> {
  let prepared: Awaited<ReturnType<typeof prepare>>;
  try {
    prepared = await prepare(argv);
  } catch (error) {
    return reportError(error, 'generate-loop');
  }
  if (prepared === 'help') {
    process.stdout.write(`${await loopHelp()}\n`);
    return 0;
  }
  const { config, runId, sandbox, simulated, script, domains, env, replay, chosen } = prepared;
  const display = createProgress(process.stderr, config.quiet);
  const progress = display.line;
  if (simulated && !config.quiet) process.stderr.write(`${SIM_BANNER}\n`);
  if (chosen !== null) process.stderr.write(`${chosen}\n`);
  if (replay !== null) {
    progress(
      `Replay: every model call is answered from ${replay.file} (${replay.size} recorded calls); no model is called.`,
    );
  }
  if (config.record !== null) progress(`Recording every model response to ${config.record}.`);
  progress(
    sandbox.kind === 'bwrap'
      ? 'Sandbox: bubblewrap (agents see only their worktree, no network but the gateway, no keys).'
      : `Sandbox: none (${sandbox.why}); agent processes run unsandboxed.`,
  );
  progress(describe(config, runId));
  try {
    const summary = await runLoop(config, runId, {
      domains,
      sandbox,
      simulated,
      // Recorded and replayed runs call the model for every task, so the recording is complete and the
      // replay answers them all; a cache from other runs would skip calls.
      cacheable: script === undefined && config.record === null && replay === null,
      startGateway: gatewayFactory({
        seed: config.seed,
        domains,
        models: [config.metaModel, config.taskModel],
        script,
        sim: config.sim,
        budgetUsd: config.budgetUsd,
        record: config.record,
        replay,
        env,
        onRetry: retryReporter(progress),
      }),
      progress,
      status: display.status,
      onEvent: display.event,
    });
    display.done();
    process.stdout.write(config.json ? `${JSON.stringify(summary)}\n` : `${renderSummary(summary)}\n`);
    // A budget stop is a normal end (exit code 0); the last line says so even with --quiet or --json.
    if (summary.stopped !== null) {
      process.stderr.write(
        `generate-loop: ${summary.stopped}. The run stopped cleanly: a call that could have taken the spend ` +
          'over the budget was refused. Raise --budget-usd to let a run go further.\n',
      );
    }
    return 0;
  } catch (error) {
    display.done();
    if (error instanceof ModelUnreachableError) {
      // The words `hyperagents chat` uses for the same failure.
      process.stderr.write(`generate-loop: provider unreachable: ${error.message}\n`);
      return 1;
    }
    return reportError(error, 'generate-loop');
  }
}

/**
 * One line per model for each further attempt (not one per call in flight), so a model being retried is
 * never silent and never floods the terminal.
 */
function retryReporter(progress: (line: string) => void): (notice: RetryNotice) => void {
  const shown = new Map<string, number>();
  return (notice) => {
    if ((shown.get(notice.model) ?? 0) >= notice.attempt) return;
    shown.set(notice.model, notice.attempt);
    progress(
      `${notice.model}: attempt ${notice.attempt} failed, retrying in ${(notice.waitMs / 1000).toFixed(1)} s: ${notice.reason}`,
    );
  };
}

function describe(config: LoopConfig, runId: string): string {
  return (
    `Run ${runId}: ${config.generations} generation(s) on ${config.domains.join(', ')}, ` +
    `parent selection ${config.parentSelection}, seed ${config.seed}, output ${config.out}/${runId}`
  );
}
