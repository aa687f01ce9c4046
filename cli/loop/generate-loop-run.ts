import { archiveFile, isFinalStep, openArchive } from '../../archive/index.ts';
import { formatDomainRef } from '../../domains/index.ts';
import { InitialAgentError } from '../../harness/process/index.ts';
import {
  HARNESS_VERSION,
  ModelUnreachableError,
  type RunEstimate,
  type RunSummary,
  runEstimate,
  runGenerations,
  STOPPED_AFTER,
} from '../../harness/run/index.ts';
import type { Coordinator } from '../../queue/index.ts';
import { redisLine } from '../queue/redis-progress.ts';
import { reportError } from '../shared/errors.ts';
import { QUEUE_HELP, type QueueFlags, takeQueueFlags } from '../shared/queue-flags.ts';
import { resumeCommand } from '../shared/self-command.ts';
import { stopOnSignals } from '../shared/stop-signals.ts';
import { UsageError } from '../shared/usage-error.ts';
import { loopHelp } from './loop-args.ts';
import { type Queued, runDeps } from './loop-deps.ts';
import { pilotEstimate } from './loop-pilot.ts';
import { type PreparedRun, prepareLoop } from './loop-prepare.ts';
import { createProgress } from './progress.ts';
import { renderSummary } from './summary-table.ts';

const SIM_BANNER =
  'Model: sim (SIMULATED). The offline simulated model answers every call: the loop, git lineage and\n' +
  'archive are real; the scores show how selection works, not how good a real model is.';

/** generate-loop past its help: the run, its estimate, or a resume (see generate-loop.ts). */
export async function runLoop(argv: string[]): Promise<number> {
  let prepared: PreparedRun | 'help' | 'version';
  let queue: QueueFlags;
  try {
    queue = takeQueueFlags(argv);
    prepared = await prepareLoop(queue.rest, { gradedElsewhere: queue.queue !== null });
    if (queue.queue !== null && typeof prepared !== 'string') {
      if (prepared.pilot !== null)
        throw new UsageError(
          '--pilot runs its short run on this machine, not on the workers of a queue: estimate without --queue ' +
            '(the calls and cost are the same).',
        );
      await refuseQueuedWorkspaces(prepared);
    }
  } catch (error) {
    return reportError(error, 'generate-loop');
  }
  if (prepared === 'version') {
    process.stdout.write(`${HARNESS_VERSION}\n`);
    return 0;
  }
  if (prepared === 'help') {
    process.stdout.write(`${await loopHelp()}\n\n${QUEUE_HELP}\n`);
    return 0;
  }
  if (prepared.estimate) {
    const { code, lines, figures } =
      prepared.pilot === null
        ? { code: 0, ...estimate(prepared) }
        : await pilotEstimate(prepared, prepared.pilot);
    if (prepared.json && figures !== null) process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
    else for (const line of lines) process.stdout.write(`${line}\n`);
    return code;
  }
  const display = createProgress(process.stderr, prepared.quiet);
  let coordinator: Coordinator | null;
  try {
    coordinator = await openQueue(queue, display.line);
  } catch (error) {
    return reportError(error, 'generate-loop');
  }
  // A replayed run calls no model: there is nothing to estimate.
  const expected = prepared.replay === null ? estimate(prepared) : null;
  await announce(prepared, expected, display.line, coordinator === null ? null : { coordinator, queue });
  const resume = resumeCommand(prepared.runDir, queue);
  // The first Ctrl-C (or another stop signal, or the end of the experiment or npx process that started the
  // run) stops the run cleanly: agents are stopped, finished work is kept. A second one exits at once.
  const interrupt = stopOnSignals(
    'stopping the run cleanly (finished work is kept; press Ctrl-C again to abort at once)',
    `Aborted. Continue the run with: ${resume}`,
  );
  try {
    const summary = await runGenerations(prepared, {
      ...runDeps(prepared, display, coordinator === null ? null : { coordinator, queue }, interrupt.signal),
      estimate: expected,
    });
    display.done();
    return reportEnd(summary, prepared, resume);
  } catch (error) {
    display.done();
    return reportFailure(error, resume);
  } finally {
    interrupt.dispose();
    await coordinator?.close();
  }
}

/** With `--queue`: the coordinator that hands tasks (and with --remote-generations, MetaAgent runs) to workers. */
async function openQueue(queue: QueueFlags, progress: (line: string) => void): Promise<Coordinator | null> {
  if (queue.queue === null) return null;
  // The queue's client (BullMQ, ioredis) is loaded only by a run that uses it.
  const [{ openCoordinator }, { PROJECT_VERSION }, { assertListenable, queueTarget }] = await Promise.all([
    import('../../queue/index.ts'),
    import('../../queue/index.ts'),
    import('../queue/queue-target.ts'),
  ]);
  const target = await queueTarget(queue.queue, 'generate-loop --queue');
  await assertListenable(queue.gatewayListen);
  return openCoordinator({
    target,
    version: PROJECT_VERSION,
    gatewayUrl: queue.gatewayUrl,
    onRedis: (event) => progress(redisLine(event)),
  });
}

/**
 * Workspace tasks go to queue workers with their grader (an `exercism:` exercise's answer); a domain whose
 * grader cannot travel (a `module:` file's workspace tasks), or a workspace cap over what a worker sends back,
 * is refused before the run starts, rather than every one of those tasks failing on a worker.
 */
async function refuseQueuedWorkspaces(prepared: PreparedRun): Promise<void> {
  const { workspaceRefusal } = await import('../../queue/index.ts');
  for (const tasks of prepared.domains) {
    const ref = prepared.config.domains.find((r) => r.name === tasks.domain.name);
    const refused = ref === undefined ? null : workspaceRefusal(ref, tasks, prepared.config.workspace.maxKb);
    if (refused !== null) throw new UsageError(refused);
  }
}

/** What the run is about to do: the model, the sandbox, the run, where its work goes, and its estimate. */
async function announce(
  prepared: PreparedRun,
  expected: RunEstimate | null,
  progress: (line: string) => void,
  queued: Queued,
): Promise<void> {
  const { config, runId, runDir, plan, replay, chosen } = prepared;
  const { sandbox } = plan;
  if (plan.simulated && !prepared.quiet) process.stderr.write(`${SIM_BANNER}\n`);
  if (chosen !== null) process.stderr.write(`${chosen}\n`);
  for (const line of prepared.leftOut) process.stderr.write(`${line}\n`);
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
  progress(
    `${prepared.mode === 'resume' ? 'Resuming run' : 'Run'} ${runId}: ${config.generations} generation(s) on ` +
      `${config.domains.map(formatDomainRef).join(', ')}, parent selection ${config.parentSelection}, seed ${config.seed}, ` +
      `parallel ${config.parallel}, output ${runDir}`,
  );
  for (const line of expected?.lines ?? []) progress(line);
  if (queued !== null) {
    const { coordinator, queue } = queued;
    const connected = await coordinator.workers();
    progress(
      `Coordinator: evaluation tasks${queue.remoteGenerations ? ' and MetaAgent runs' : ''} go to the ` +
        `workers of ${queue.queue} (${connected} connected now; start more with: hyperagents worker --queue ${queue.queue}).`,
    );
  }
}

/** The expected calls, cost and time of the generations still to run (see harness/run/estimate.ts). */
function estimate(prepared: PreparedRun): ReturnType<typeof runEstimate> {
  const { config, domains, mode, runDir, history } = prepared;
  // The run will start up again as this command did: measured here, under this machine's load now.
  const startupSec = history === null ? 0 : process.uptime();
  if (mode === 'new') return runEstimate(config, domains, null, history, startupSec);
  const archive = openArchive(archiveFile(runDir));
  try {
    const done = archive.listVariants().filter((v) => v.id > 0 && isFinalStep(v.step)).length;
    return runEstimate(config, domains, { done, spentUsd: archive.llmTotals().costUsd }, history, startupSec);
  } finally {
    archive.close();
  }
}

/** Prints the summary and how the run ended; the exit code. */
function reportEnd(summary: RunSummary, prepared: PreparedRun, resume: string): number {
  process.stdout.write(prepared.json ? `${JSON.stringify(summary)}\n` : `${renderSummary(summary)}\n`);
  // These last lines are printed even with --quiet or --json: they say how the run ended (after Ctrl-C the
  // very last is the command that continues it, alone, to copy).
  if (summary.stopped === 'interrupted') {
    process.stderr.write(
      `generate-loop: interrupted; finished work is kept in ${prepared.runDir}. Continue with:\n${resume}\n`,
    );
    return 130;
  }
  if (summary.stopped === STOPPED_AFTER) {
    process.stderr.write(`generate-loop: ${summary.stopped}; the run can be continued with: ${resume}\n`);
    return 0;
  }
  if (summary.stopped !== null) {
    process.stderr.write(
      `generate-loop: ${summary.stopped}. The run stopped cleanly: a call that could have taken the spend ` +
        `over the budget was refused. Raise --budget-usd to let a run go further: ${resume} ` +
        '--budget-usd X\n',
    );
  }
  return 0;
}

/** Says why the run failed, and how to continue it when a resume can; the exit code. */
function reportFailure(error: unknown, resume: string): number {
  if (error instanceof ModelUnreachableError) {
    // The words `hyperagents chat` uses for the same failure.
    process.stderr.write(`generate-loop: provider unreachable: ${error.message}\n`);
    return 1;
  }
  // A resume would stop at the same place: the message says what a new run must change.
  if (error instanceof InitialAgentError) {
    process.stderr.write(`generate-loop: ${error.message}\n`);
    return 1;
  }
  const code = reportError(error, 'generate-loop');
  process.stderr.write(`The finished work is kept; to continue: ${resume}\n`);
  return code;
}
