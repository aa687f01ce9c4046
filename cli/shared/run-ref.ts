import { accessSync, constants, statSync } from 'node:fs';
import {
  archiveFile,
  checkArchive,
  findRun,
  parseVariantRef,
  UnreadableArchiveError,
} from '../../archive/index.ts';
import { UsageError } from './usage-error.ts';

/** `--runs` (alias `--out`, as generate-loop calls it), the folder of runs of the commands that read them. */
export const RUNS_OPTION = {
  alias: 'out',
  type: 'string',
  default: './runs',
  requiresArg: true,
  describe: 'folder of runs (--out, as generate-loop calls it, works too)',
} as const;

/** The refusal (exit 2) of a run archive that cannot be read: the file, what is wrong, what to do. */
export function unreadableArchive(file: string, why: string): UsageError {
  return new UsageError(
    `${new UnreadableArchiveError(file, why).message}. It is damaged, or was written by another program or ` +
      'version: restore it from a copy, or start a new run.',
  );
}

/** `error` as the refusal of its archive when it is an UnreadableArchiveError, else unchanged. */
export const refusalOf = (error: unknown): unknown =>
  error instanceof UnreadableArchiveError ? unreadableArchive(error.file, error.why) : error;

/**
 * The check every command makes before it reads a run: refuses (exit 2), naming the file, an archive this
 * version cannot read. `continue` is for the commands that write into the run or build on it (eval,
 * --resume, --from): they also read every page, and need every variant in a step this version knows.
 */
export function assertReadableArchive(runDir: string, use: 'browse' | 'continue'): void {
  const file = archiveFile(runDir);
  const check = checkArchive(file, use === 'continue' ? { everyPage: true, knownSteps: true } : {});
  if (!check.ok) throw unreadableArchive(file, check.why);
}

/**
 * Refuses (exit 2) a folder of runs that is missing, is a file, or cannot be read, naming the flag and the
 * folder: a reader of every run there would otherwise show "no runs", as if the folder were empty.
 */
export function assertRunsFolder(runsDir: string, flag: string): void {
  const where =
    'Pass the folder that holds the runs: generate-loop writes them into ./runs, or into its --out.';
  let isDir: boolean;
  try {
    isDir = statSync(runsDir).isDirectory();
    if (isDir) accessSync(runsDir, constants.R_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new UsageError(`${flag} ${runsDir}: there is no such folder. ${where}`);
    throw new UsageError(`${flag} ${runsDir} cannot be read (${code ?? String(error)}). ${where}`);
  }
  if (!isDir) throw new UsageError(`${flag} ${runsDir} is a file, not a folder of runs. ${where}`);
}

/**
 * A run named on the command line for the harness to continue or write into: a run id in `out`, or the
 * path of a run folder (see findRun), with an archive it can read.
 */
export function locateRun(ref: string, out: string, option: string): string {
  const found = findRun(out, ref);
  if (!found.ok) {
    throw new UsageError(
      `${option} ${ref}: no run there. Give a run id in ${out} (or pass --out with the folder that holds it), ` +
        'or the path of a run folder (the one with archive.sqlite).',
    );
  }
  assertReadableArchive(found.dir, 'continue');
  return found.dir;
}

/** `RUN:VARIANT` named for the harness to build on or write into: the run's folder and the variant id. */
export function locateVariant(
  ref: string,
  out: string,
  option: string,
): { runDir: string; variantId: number } {
  const parsed = parseVariantRef(ref);
  if (parsed === null) {
    throw new UsageError(
      `${option} takes RUN:VARIANT, a run id (or folder) and a variant number, e.g. 20260101-120000-000:3; ` +
        `not "${ref}".`,
    );
  }
  return { runDir: locateRun(parsed.run, out, option), variantId: parsed.variant };
}
