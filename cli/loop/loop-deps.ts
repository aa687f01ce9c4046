import { secretValues } from '../../archive/index.ts';
import { gatewayFactory, type RetryNotice, type RunDeps } from '../../harness/run/index.ts';
import type { Coordinator } from '../../queue/index.ts';
import { printGatewayWarning } from '../shared/errors.ts';
import type { QueueFlags } from '../shared/queue-flags.ts';
import type { PreparedRun } from './loop-prepare.ts';
import type { createProgress } from './progress.ts';
import { steerLines } from './steer-lines.ts';

/** A run's queue: the coordinator and the flags that chose it; null for a run on this machine alone. */
export type Queued = { coordinator: Coordinator; queue: QueueFlags } | null;

/** What the run's generations use: the plan, the gateway, the workers of a queue, the display. */
export function runDeps(
  prepared: PreparedRun,
  display: ReturnType<typeof createProgress>,
  queued: Queued,
  signal: AbortSignal,
): RunDeps {
  const { config, plan, script, domains, env, replay } = prepared;
  return {
    domains,
    sandbox: plan.sandbox,
    secrets: secretValues(env),
    simulated: plan.simulated,
    cacheable: plan.cacheable,
    startGateway: gatewayFactory({
      seed: config.seed,
      domains,
      models: [config.metaModel, config.taskModel],
      script,
      sim: config.sim,
      record: config.record,
      replay,
      env,
      onRetry: retryReporter(display.line),
      onModelHealth: display.event,
      onWarning: printGatewayWarning,
      ...(queued === null ? {} : { tcp: queued.queue.gatewayListen }),
      ...(config.batch ? { batch: { taskModel: config.taskModel, sim: config.simBatch } } : {}),
    }),
    ...(queued === null ? {} : { remoteTasks: queued.coordinator }),
    ...(queued?.queue.remoteGenerations === true ? { remoteEdits: queued.coordinator } : {}),
    progress: display.line,
    status: display.status,
    onEvent: (event) => {
      if (event.type === 'run_started' && event.controlSecret !== undefined)
        for (const line of steerLines(prepared.runId, prepared.runDir, event.controlSecret))
          display.line(line);
      display.event(event);
    },
    signal,
  };
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
