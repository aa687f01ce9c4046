import { RESUMABLE_CHANGES, type RunConfig } from '../../harness/run/index.ts';
import { UsageError } from '../shared/usage-error.ts';
import type { LoopConfig } from './loop-args.ts';

/** The run configuration each command-line option sets. Options not listed here do not change what a run computes. */
const OPTION_KEYS: Record<string, readonly (keyof RunConfig)[]> = {
  domains: ['domains'],
  model: ['metaModel', 'taskModel'],
  'meta-model': ['metaModel'],
  'task-model': ['taskModel'],
  seed: ['seed'],
  generations: ['generations'],
  parallel: ['parallel'],
  'budget-usd': ['budgetUsd'],
  'eval-workers': ['evalWorkers'],
  'tasks-per-worker': ['tasksPerWorker'],
  'eval-samples': ['evalSamples'],
  'eval-repeats': ['evalRepeats'],
  'confirm-top': ['confirmTop'],
  'noise-floor': ['noiseFloor'],
  'staged-samples': ['stagedSamples'],
  'skip-staged-eval': ['skipStagedEval'],
  'eval-test': ['evalTest'],
  'parent-selection': ['parentSelection'],
  'edit-select-parent': ['editSelectParent'],
  sandbox: ['sandbox'],
  'sim-script': ['simScript'],
  'freeze-meta': ['freezeMeta'],
  'task-timeout': ['taskTimeoutSec'],
  'max-tool-calls': ['workspace'],
  'workspace-max-files': ['workspace'],
  'workspace-max-kb': ['workspace'],
  'meta-timeout': ['metaTimeoutSec'],
  record: ['record'],
  replay: ['replay'],
  'sim-latency-ms': ['sim'],
  'sim-fault-rate': ['sim'],
  'sim-faults': ['sim'],
  'sim-price-per-mtok': ['sim'],
  'sim-retry-ms': ['sim'],
  'sim-noise': ['sim'],
  'sim-landscape': ['sim'],
  notify: ['notifyUrl'],
  'notify-cmd': ['notifyCmd'],
  'stall-minutes': ['stallMinutes'],
  'failure-streak': ['failureStreak'],
};

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The configuration a resumed run continues under: the stored one, with --generations, --budget-usd,
 * --parallel and the alert options taken from the command line when given. Any other option given with a value that differs from
 * the stored one is refused, naming it, because the run would no longer compute what it started to. Pure.
 */
export function resumeConfig(cli: LoopConfig, stored: RunConfig, runDir: string): RunConfig {
  if (cli.from !== null) {
    throw new UsageError(
      '--from starts a new run; it cannot be combined with --resume, which continues one.',
    );
  }
  const next: RunConfig = { ...stored };
  for (const option of cli.given) {
    for (const key of OPTION_KEYS[option] ?? []) {
      const value = cli[key as keyof LoopConfig];
      if ((RESUMABLE_CHANGES as readonly string[]).includes(key)) {
        Object.assign(next, { [key]: value });
        continue;
      }
      if (!same(value, stored[key])) {
        throw new UsageError(
          `--${option} differs from the run being resumed (${runDir} has ${JSON.stringify(stored[key])}, the ` +
            `command line ${JSON.stringify(value)}). A resumed run keeps its model, domains, seed and evaluation ` +
            `settings so that its archive stays one experiment: drop --${option}, or start a new run. Only ` +
            '--generations, --budget-usd, --parallel and the alert options (--notify ...) may change.',
        );
      }
    }
  }
  return next;
}
