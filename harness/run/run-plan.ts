import { providerSettings, resolveModel } from '../../llm/index.ts';
import type { ResolvedSandbox } from '../process/index.ts';
import { isSimulatedModel, type RunConfig } from './run-config.ts';

/** What a run's plan depends on besides its configuration: facts of this machine, gathered by the caller. */
export interface RunEnv {
  /** The environment's variables (the provider keys). */
  vars: Readonly<Record<string, string | undefined>>;
  /** What the configuration's sandbox mode gives on this machine (see resolveSandbox). */
  sandbox: ResolvedSandbox | { kind: 'missing' };
  /** The run folder when the configuration is a stored run's (evaluated again), null for the command line's. */
  storedIn: string | null;
}

/** How a run will go, decided once from its configuration for every command that runs agents. */
export interface PlannedRun {
  sandbox: ResolvedSandbox;
  /** Every model the run calls is the offline simulated one. */
  simulated: boolean;
  /**
   * Whether task results may be taken from, and put into, the cache shared by the runs of a folder: not for
   * scripted replies, nor for recorded and replayed runs (they call the model for every task, so the recording
   * is complete and the replay answers them all; a cache from other runs would skip calls).
   */
  cacheable: boolean;
}

type PlanConfig = Pick<RunConfig, 'metaModel' | 'taskModel' | 'sandbox' | 'simScript' | 'record' | 'replay'>;

/**
 * Decides how a run goes, or refuses it with a message that says what to do: a model whose key is missing,
 * a sandbox asked for that does not work here, and real models without a sandbox unless `--sandbox none`
 * accepted that. Pure.
 */
export function planRun(
  config: PlanConfig,
  env: RunEnv,
): { ok: true; plan: PlannedRun } | { ok: false; message: string } {
  const missingKey = missingKeyOf(config, env.vars);
  if (missingKey !== null) return { ok: false, message: missingKey };
  const sandbox = env.sandbox;
  const stored = env.storedIn;
  if (sandbox.kind === 'missing') {
    const install = 'Install it (Debian/Ubuntu: apt-get install bubblewrap)';
    return {
      ok: false,
      message:
        stored === null
          ? `--sandbox bwrap was asked for, but bubblewrap does not work here. ${install} or pass --sandbox auto or none.`
          : `The run ${stored} was started with --sandbox bwrap, but bubblewrap does not work here. ${install}.`,
    };
  }
  const simulated = [config.metaModel, config.taskModel].every(isSimulatedModel);
  if (sandbox.kind === 'none' && !simulated && config.sandbox !== 'none') {
    const unsandboxed = `Agents would run real models without a sandbox (${sandbox.why}). Install bubblewrap`;
    return {
      ok: false,
      message:
        stored === null
          ? `${unsandboxed}, or pass --sandbox none to accept running agent-written code unsandboxed.`
          : `${unsandboxed}: the run ${stored} was started with --sandbox ${config.sandbox}, which needs it here.`,
    };
  }
  const cacheable = config.simScript === null && config.record === null && config.replay === null;
  return { ok: true, plan: { sandbox, simulated, cacheable } };
}

/** Every real model the run calls needs its key; a replayed run calls none. The message, or null. */
function missingKeyOf(config: PlanConfig, vars: RunEnv['vars']): string | null {
  if (config.replay !== null) return null;
  for (const id of new Set([config.metaModel, config.taskModel])) {
    const resolved = resolveModel(id);
    if (!resolved.ok || resolved.model.simulated) continue;
    const settings = providerSettings(resolved.model, vars);
    if (!settings.ok) return settings.message;
  }
  return null;
}
