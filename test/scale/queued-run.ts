import type { PreparedRun } from '../../cli/loop/loop-prepare.ts';
import type { RemoteTasks } from '../../harness/generation/index.ts';
import { gatewayFactory, type RunSummary, runGenerations } from '../../harness/run/index.ts';

/**
 * Runs a prepared generate-loop in this process with its tasks going through `remoteTasks` (a coordinator, or
 * one wrapped by a test), the gateway listening on TCP for the workers as `generate-loop --queue` does
 * (cli/loop/loop-deps.ts). Returns the run's summary.
 */
export function runQueued(
  prepared: PreparedRun,
  remoteTasks: RemoteTasks,
  progress: (line: string) => void = () => undefined,
): Promise<RunSummary> {
  const { config, plan, script, domains, env, replay } = prepared;
  return runGenerations(prepared, {
    domains,
    sandbox: plan.sandbox,
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
      onWarning: () => undefined,
      tcp: { host: '127.0.0.1', port: 0 },
    }),
    remoteTasks,
    progress,
    status: () => undefined,
    signal: new AbortController().signal,
  });
}
