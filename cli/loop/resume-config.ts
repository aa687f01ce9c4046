import { fieldValue, type RunConfig } from '../../harness/run/index.ts';
import { UsageError } from '../shared/usage-error.ts';
import type { LoopConfig } from './loop-args.ts';
import { settingsOfOption } from './setting-options.ts';

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** A copy of `config` with the value at `field` (`limits.memoryMb`, one level down at most) replaced. */
function withField(config: RunConfig, field: string, value: unknown): RunConfig {
  const [group, key] = field.split('.') as [keyof RunConfig, string | undefined];
  if (key === undefined) return { ...config, [group]: value };
  return { ...config, [group]: { ...(config[group] as object), [key]: value } };
}

/** The settings a resumed run may change, as the help of `--resume` names them. */
const MAY_CHANGE = '--generations, --budget-usd, --parallel and the alert options (--notify ...)';

/**
 * The configuration a resumed run continues under: the stored one, with the settings the table marks
 * `resume: 'may-change'` taken from the command line when given. Any other setting given with a value that
 * differs from the stored one is refused, naming it, because the run would no longer compute what it started
 * to. Options that are not settings (--out, --json, ...) do not change what a run computes. Pure.
 */
export function resumeConfig(cli: LoopConfig, stored: RunConfig, runDir: string): RunConfig {
  if (cli.from !== null) {
    throw new UsageError(
      '--from starts a new run; it cannot be combined with --resume, which continues one.',
    );
  }
  let next: RunConfig = { ...stored };
  for (const option of cli.given) {
    for (const setting of settingsOfOption(option)) {
      const value = fieldValue(cli, setting.field);
      if (setting.resume === 'may-change') {
        next = withField(next, setting.field, value);
        continue;
      }
      const was = fieldValue(stored, setting.field);
      if (!same(value, was)) {
        throw new UsageError(
          `--${option} differs from the run being resumed (${runDir} has ${JSON.stringify(was)}, the ` +
            `command line ${JSON.stringify(value)}). A resumed run keeps its model, domains, seed and evaluation ` +
            `settings so that its archive stays one experiment: drop --${option}, or start a new run. Only ` +
            `${MAY_CHANGE} may change.`,
        );
      }
    }
  }
  return next;
}
