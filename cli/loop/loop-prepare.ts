import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  archiveFile,
  evalCacheFile,
  openArchive,
  openArchiveReader,
  openEvalCache,
  runEvalCacheFile,
  variantRepoDir,
} from '../../archive/index.ts';
import type { Domain } from '../../domains/index.ts';
import { listDomainNames } from '../../domains/index.ts';
import type { DomainTasks } from '../../harness/evaluation/index.ts';
import { limitsAboveMachine, type ResourceLimits, resolveSandbox } from '../../harness/process/index.ts';
import {
  defaultRunId,
  type HistoryRates,
  historyRates,
  loadDomainTasks,
  type PlannedRun,
  parseStoredConfig,
  planRun,
  type RunConfig,
  RunConfigSchema,
  runExists,
  runHolder,
  type TransferSource,
} from '../../harness/run/index.ts';
import {
  loadEnv,
  loadReplayBook,
  loadSimScript,
  type ParsedSimScript,
  type ReplayBook,
  resolveModel,
} from '../../llm/index.ts';
import { git, gitInstalled } from '../../system/git.ts';
import { defaultModel } from '../models/default-model.ts';
import { locateRun, locateVariant } from '../shared/run-ref.ts';
import { UsageError } from '../shared/usage-error.ts';
import { assertWritableDir } from '../shared/writable.ts';
import { configUsageError } from './config-error.ts';
import { type LoopConfig, optionOf, type PilotFlags, parseLoopArgs, runConfigOf } from './loop-args.ts';
import { resumeConfig } from './resume-config.ts';

export interface PreparedRun {
  config: RunConfig;
  mode: 'new' | 'resume';
  runId: string;
  runDir: string;
  cacheFile: string;
  json: boolean;
  quiet: boolean;
  /** Sandbox, simulated, cacheable: decided by the harness from the configuration. */
  plan: PlannedRun;
  script: ParsedSimScript | undefined;
  domains: DomainTasks[];
  env: Readonly<Record<string, string | undefined>>;
  replay: ReplayBook | null;
  /** Says which model was chosen from the keys that are set, when --model was not given. */
  chosen: string | null;
  /** One line per domain that left rows of its file out (broken rows, repeated ids), printed even with --quiet. */
  leftOut: string[];
  /** `--estimate`: print the estimate and run nothing. */
  estimate: boolean;
  /** Rates measured on `--estimate-from`'s run, or on the resumed run itself; null without a finished generation. */
  history: { rates: HistoryRates; source: string } | null;
  /** `--estimate --pilot N`: measure the rates on a short run first (cli/loop/loop-pilot.ts); null without. */
  pilot: PilotFlags | null;
}

/** `Domain qa left out 2 rows of its file: line 3 (…); line 9 (…).` A dataset's skipped rows are never silent. */
export function leftOutNotice(domain: Pick<Domain, 'name' | 'skipped'>): string | null {
  const { skipped } = domain;
  if (skipped.length === 0) return null;
  const shown = skipped.slice(0, 3).map((s) => (s.line > 0 ? `line ${s.line}: ${s.reason}` : s.reason));
  const more = skipped.length > shown.length ? `; and ${skipped.length - shown.length} more` : '';
  return (
    `Domain ${domain.name} left out ${skipped.length} ${skipped.length === 1 ? 'entry' : 'entries'} of its ` +
    `source, which it will not evaluate (${shown.join('; ')}${more}). hyperagents domains test lists them all.`
  );
}

function checkModel(id: string): string | null {
  const resolved = resolveModel(id);
  return resolved.ok ? null : resolved.error.message;
}

async function assertGitInstalled(): Promise<void> {
  if (!(await gitInstalled())) {
    throw new UsageError(
      'git is not installed: every agent variant is a git commit. Install git and run again.',
    );
  }
}

/**
 * Refuses limits this machine cannot set on an agent process (every agent would fail to start). `runDir`:
 * the limits are a stored run's (resumed or evaluated here), not the command line's.
 */
export function assertLimitsFit(limits: ResourceLimits, runDir: string | null = null): void {
  const [above] = limitsAboveMachine(limits);
  if (above === undefined) return;
  const option = `${optionOf(['limits', above.field])} ${limits[above.field]}`;
  const tooMuch = `more than this machine lets a process have (${above.max}: ${above.why}), so no agent process could start`;
  throw new UsageError(
    runDir === null
      ? `${option} is ${tooMuch}. Give at most ${above.max}, or raise the hard limit first (as root).`
      : `The run ${runDir} was started with ${option}, ${tooMuch}. Raise the hard limit first (as root), or ` +
          'use a machine that allows it.',
  );
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

/**
 * The variant repository of a run must hold `commit` (its variant 0, or the variant to start from): it is
 * where every variant's code is, and a run never makes a new one in its place.
 */
async function assertVariantRepo(runDir: string, commit: string, what: string): Promise<void> {
  const gitDir = variantRepoDir(runDir);
  let holds = existsSync(gitDir);
  if (holds) {
    try {
      await git({ gitDir }, ['cat-file', '-e', `${commit}^{commit}`]);
    } catch {
      holds = false;
    }
  }
  if (!holds) {
    throw new UsageError(
      `${what}: the variant repository ${gitDir} is missing or does not hold the commit ${commit.slice(0, 8)}. It ` +
        'holds the code of every variant of that run, which no other file has: put it back (from a backup or a ' +
        'copy of the run folder), or start a new run. The archive beside it can still be read with ' +
        'hyperagents archive.',
    );
  }
}

/** The run configuration of the run being resumed, with what the command line may change. */
async function resumed(
  cli: LoopConfig,
  ref: string,
): Promise<{ config: RunConfig; runId: string; runDir: string; cacheFile: string }> {
  const runDir = locateRun(ref, cli.out, '--resume');
  const holder = runHolder(runDir);
  if (holder !== null) {
    throw new UsageError(
      `--resume ${ref}: the run is still running (process ${holder}). Stop it first (Ctrl-C in its terminal, or ` +
        `kill ${holder}); then resume it.`,
    );
  }
  const archive = openArchive(archiveFile(runDir));
  try {
    const run = archive.getRun();
    const stored = run === undefined ? null : parseStoredConfig(run.config);
    const refused = run === undefined ? undefined : RunConfigSchema.safeParse(run.config).error?.issues[0];
    if (refused !== undefined && optionOf(refused.path).startsWith('--')) {
      // A value a later version refuses (a limit under its floor): say which, not "another version".
      throw new UsageError(
        `--resume ${ref}: the run was started with a value this version refuses: ` +
          `${configUsageError(refused, run?.config, optionOf).message} Start a new run with a value in that range.`,
      );
    }
    if (run === undefined || stored === null) {
      throw new UsageError(
        `--resume ${ref}: the run's stored configuration cannot be read (it was written by another version of ` +
          'hyperagents, or the run never started). Start a new run instead.',
      );
    }
    const config = resumeConfig(cli, stored, runDir);
    const zero = archive.getVariant(0)?.commitSha ?? null;
    if (zero !== null) await assertVariantRepo(runDir, zero, `--resume ${ref}`);
    const spent = archive.llmTotals().costUsd;
    if (config.budgetUsd !== null && spent >= config.budgetUsd) {
      throw new UsageError(
        `--resume ${ref}: the run has spent $${spent.toFixed(4)} of its $${config.budgetUsd.toFixed(4)} budget. ` +
          'Give a larger --budget-usd to let it go further.',
      );
    }
    return { config, runId: run.id, runDir, cacheFile: runEvalCacheFile(runDir) };
  } finally {
    archive.close();
  }
}

/** A new run: its folder must not exist yet, the folder of runs must take it, and --from must name code. */
async function newRun(
  cli: LoopConfig,
): Promise<{ config: RunConfig; runId: string; runDir: string; cacheFile: string }> {
  const from = cli.from === null ? null : await transferSource(cli.from, cli.out);
  const config = { ...runConfigOf(cli), from };
  assertWritableDir(cli.out, '--out');
  const runId = cli.runId ?? defaultRunId();
  if (runExists(cli.out, runId)) {
    throw new UsageError(
      `A run named "${runId}" already exists in ${cli.out}. Choose another --run-id, or continue it with ` +
        `--resume ${runId}.`,
    );
  }
  if (config.record !== null) assertRecordable(config.record);
  return {
    config,
    runId,
    runDir: path.join(cli.out, runId),
    cacheFile: evalCacheFile(cli.out),
  };
}

/**
 * How the run goes on this machine (see planRun), or the refusal. `storedIn`: the folder of the run whose
 * stored configuration this is (evaluated again), null for the command line's.
 */
export function planOrRefuse(
  config: RunConfig,
  env: Readonly<Record<string, string | undefined>>,
  storedIn: string | null = null,
): PlannedRun {
  const planned = planRun(config, { vars: env, sandbox: resolveSandbox(config.sandbox), storedIn });
  if (!planned.ok) throw new UsageError(planned.message);
  return planned.plan;
}

function simScript(file: string): ParsedSimScript {
  try {
    return loadSimScript(file);
  } catch (error) {
    throw new UsageError(`--sim-script: ${(error as Error).message}`);
  }
}

/** `--from RUN:VARIANT`: the variant must exist and have code. */
async function transferSource(ref: string, out: string): Promise<TransferSource> {
  const { runDir, variantId } = locateVariant(ref, out, '--from');
  const archive = openArchive(archiveFile(runDir));
  try {
    const commit = archive.getVariant(variantId)?.commitSha ?? null;
    if (commit === null) {
      throw new UsageError(
        `--from ${ref}: variant ${variantId} has no code in that run (it does not exist, or its MetaAgent ` +
          'failed before committing). List the variants with hyperagents archive list.',
      );
    }
    await assertVariantRepo(runDir, commit, `--from ${ref}`);
    return { runDir, variantId, commit };
  } finally {
    archive.close();
  }
}

/**
 * Validates everything that can be checked before the run folder is written: a run's configuration, domains and plan from its arguments. `gradedElsewhere`: its tasks are graded on
 * queue workers (`--queue`), so no exercise is left out for a toolchain this machine lacks.
 */
export async function prepareLoop(
  argv: string[],
  { gradedElsewhere = false }: { gradedElsewhere?: boolean } = {},
): Promise<PreparedRun | 'help' | 'version'> {
  const env = loadEnv();
  const fallback = defaultModel(env);
  const cli = await parseLoopArgs(argv, {
    domains: listDomainNames(),
    checkModel,
    defaultModel: fallback.model,
  });
  if (cli === 'help' || cli === 'version') return cli;
  const mode = cli.resume === null ? 'new' : 'resume';
  const { config, runId, runDir, cacheFile } =
    cli.resume === null ? await newRun(cli) : await resumed(cli, cli.resume);
  assertLimitsFit(config.limits, mode === 'resume' ? runDir : null);
  assertCacheReadable(cacheFile);
  const replay = config.replay === null ? null : openReplay(config.replay);
  await assertGitInstalled();
  const plan = planOrRefuse(config, env);
  const script = config.simScript === null ? undefined : simScript(config.simScript);
  const domains = await loadDomainTasks(config, gradedElsewhere ? { gradedElsewhere } : {});
  if ('error' in domains) throw new UsageError(domains.error);
  const chosen =
    mode === 'new' &&
    fallback.key !== undefined &&
    [config.metaModel, config.taskModel].includes(fallback.model)
      ? `Model: ${fallback.model}, chosen because ${fallback.key} is set. Pass --model to choose another ` +
        '(--model sim runs offline at no cost; hyperagents models lists them).'
      : null;
  const leftOut = domains.map(({ domain }) => leftOutNotice(domain)).filter((n): n is string => n !== null);
  return {
    config,
    mode,
    runId,
    runDir,
    cacheFile,
    json: cli.json,
    quiet: cli.quiet,
    plan,
    script,
    domains,
    env,
    replay,
    chosen,
    leftOut,
    estimate: cli.estimate,
    history: estimateHistory(cli, mode === 'resume' ? runDir : null),
    pilot: cli.pilot,
  };
}

/** The rates of `--estimate-from`'s run, else of the resumed run; null when neither has a finished generation. */
function estimateHistory(cli: LoopConfig, resumedDir: string | null): PreparedRun['history'] {
  const dir =
    cli.estimateFrom === null ? resumedDir : locateRun(cli.estimateFrom, cli.out, '--estimate-from');
  if (dir === null) return null;
  const reader = openArchiveReader(archiveFile(dir));
  try {
    const rates = historyRates(reader);
    if (rates === null && cli.estimateFrom !== null)
      throw new UsageError(
        `--estimate-from ${cli.estimateFrom}: that run has no finished generation to measure; give a run that has one.`,
      );
    return rates === null ? null : { rates, source: `run ${reader.run()?.id ?? path.basename(dir)}` };
  } finally {
    reader.close();
  }
}

/** Checks generate-loop options as the command would, without reading or writing runs. */
export async function checkLoopArgs(argv: string[]): Promise<void> {
  const cli = await parseLoopArgs(argv, {
    domains: listDomainNames(),
    checkModel,
    defaultModel: defaultModel(loadEnv()).model,
  });
  if (cli !== 'help' && cli !== 'version') assertLimitsFit(cli.limits);
}
