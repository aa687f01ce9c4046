import path from 'node:path';
import yargs from 'yargs';
import { ALL_SPLITS } from '../../domains/index.ts';
import { parseOrExplain } from '../shared/parse-usage.ts';
import { assertRunsFolder, RUNS_OPTION } from '../shared/run-ref.ts';
import { UsageError } from '../shared/usage-error.ts';
import { diffVariants } from './archive-diff.ts';
import { exportCsv, exportJsonl } from './archive-export.ts';
import { showLineage } from './archive-lineage.ts';
import { out } from './archive-output.ts';
import { withRun, withVariant } from './archive-refs.ts';
import { REGRESSIONS_HELP, showRegressions } from './archive-regressions.ts';
import { bestVariants, runList } from './archive-runs.ts';
import { showVariant } from './archive-show.ts';
import { listTasks } from './archive-tasks.ts';
import { listVariants } from './archive-variants.ts';
import { limitOption, unpackLimits } from './verify-limits.ts';

export { scoreColumns, unfinishedNotes } from './archive-variants.ts';

export const ARCHIVE_USAGE = `hyperagents archive <command> [options]

Commands:
  list [RUN]                       the runs under --runs (an unreadable one
                                   says so); with RUN, its variants
  show RUN:VARIANT                 scores, change, MetaAgent summary, failure
  diff RUN:VARIANT [[RUN:]VARIANT]   the change against its parent or a variant
  lineage RUN:VARIANT              the path from variant 0 with score changes
  best [RUN ...] [--domain D] [--split S] [--top N]   the best variants
                                   (N at least 1, default 10)
  tasks RUN:VARIANT [--failed] [--domain D] [--split S]   per-task results
  regressions RUN [--domain D] [--split S]   each variant against its
                                   parent, task by task: the tasks it broke
                                   (regressed) and fixed, and the run's
                                   regression rate (see below)
  export RUN --format jsonl|csv    every variant of a run, to stdout (to a
                                   file: all of it, or nothing)
  bundle RUN -o FILE [--force] [--no-data]   the run as one .tar.gz to
                                   inspect or re-run elsewhere: its archive (a
                                   consistent copy, even of a run still going),
                                   variants.git, recording, configuration, the
                                   data files of its dataset: and lmeval:
                                   domains (refused over 100 MB in all:
                                   --no-data leaves them out, keeping their
                                   hashes), and a manifest of hashes, domains,
                                   models (asked for and reported by the
                                   provider) and project version
  verify FILE                      checks a bundle's files against its
                                   manifest, re-runs the run from it (the sim,
                                   or its recording; data files from the
                                   bundle's copy) and compares variants,
                                   parents, scores and task results; exit 0
                                   the same, 1 different, 2 bad input. The
                                   bundle is untrusted: unpacked within limits
                                   (--max-file-mb 2048, --max-total-mb 4096,
                                   --max-ratio 200, --max-files 200000; raise
                                   them for a bundle you trust), re-run in the
                                   sandbox with no alerts and no model but the
                                   sim or its recording, reading no file
                                   outside it but an exercism: domain's

                                   exercises. It prints the sha256 of the
                                   bundle and of its manifest

A run is a run id under --runs (default ./runs) or the path of a run folder.
A split is one of ${ALL_SPLITS.join(', ')}.
Options: --runs DIR, --json (machine-readable output).

archive regressions RUN:
${REGRESSIONS_HELP}
--json prints [{"variant", "parent", "regressed": [task id], "fixed": [task
id], "rebroken", "shared", "parentPassed", "childOnly", "parentOnly",
"changes"}], one entry per variant with task results and a parent.`;

const SUBCOMMANDS = [
  'list',
  'show',
  'diff',
  'lineage',
  'best',
  'tasks',
  'regressions',
  'export',
  'bundle',
  'verify',
] as const;

async function parse(argv: string[]) {
  return parseOrExplain(
    yargs(argv)
      .scriptName('hyperagents archive')
      .usage(ARCHIVE_USAGE)
      .version(false)
      .option('runs', RUNS_OPTION)
      .option('json', { type: 'boolean', default: false })
      .option('domain', { type: 'string', requiresArg: true })
      .option('split', { type: 'string', requiresArg: true })
      .option('failed', { type: 'boolean', default: false })
      .option('top', { type: 'number', default: 10, requiresArg: true })
      .option('format', { type: 'string', choices: ['jsonl', 'csv'], requiresArg: true })
      .option('o', {
        alias: 'output',
        type: 'string',
        requiresArg: true,
        describe: 'the .tar.gz bundle writes (a folder: RUN.tar.gz inside it)',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'let bundle replace a file already there',
      })
      .option('data', {
        type: 'boolean',
        default: true,
        describe:
          'bundle packs the data files of dataset: and lmeval: domains (up to 100 MB); --no-data leaves them out',
      })
      .option('max-file-mb', limitOption('verify unpacks no file larger, in MB', 'fileBytes'))
      .option('max-total-mb', limitOption('verify unpacks no more in all, in MB', 'totalBytes'))
      .option(
        'max-ratio',
        limitOption('verify stops unpacking past this many bytes per byte of the bundle', 'ratio'),
      )
      .option('max-files', limitOption('verify unpacks no more files and folders', 'entries'))
      .strictOptions()
      .help(),
    'hyperagents archive',
    argv,
  );
}

/** `--top` and `--split` as the readers take them; a UsageError saying what is wrong otherwise. */
function checkFilters(args: { top: number; split?: string | undefined }): void {
  if (!Number.isInteger(args.top) || args.top < 1) {
    const got = Number.isNaN(args.top) ? 'something that is not a number' : String(args.top);
    throw new UsageError(`--top must be a whole number of at least 1, not ${got}.`);
  }
  if (args.split !== undefined && !(ALL_SPLITS as readonly string[]).includes(args.split))
    throw new UsageError(`--split must be one of ${ALL_SPLITS.join(', ')}, not "${args.split}".`);
}

/** `hyperagents archive ...`: reads run archives only, never writes into them. Returns the exit code. */
export async function archiveCommand(argv: string[]): Promise<number> {
  const args = await parse(argv);
  if (args.help === true) return 0;
  const [sub, ...positional] = args._.map(String);
  const runsDir = path.resolve(args.runs);
  const need = (n: number, what: string): string[] => {
    if (positional.length < n)
      throw new UsageError(`archive ${sub} needs ${what}. Run hyperagents archive --help.`);
    return positional;
  };
  checkFilters(args);
  // list and best without runs named read every run there: a folder that is not there is not "no runs".
  if ((sub === 'list' || sub === 'best') && positional.length === 0) assertRunsFolder(runsDir, '--runs');
  switch (sub) {
    case 'list':
      if (positional[0] === undefined) out(runList(runsDir, args.json));
      else withRun(runsDir, positional[0], (run) => listVariants(run, args.json));
      return 0;
    case 'show':
      return withVariant(runsDir, need(1, 'RUN:VARIANT')[0]!, async (run, v) => {
        await showVariant(run, v, args.json);
        return 0;
      });
    case 'diff':
      return diffVariants(runsDir, need(1, 'RUN:VARIANT')[0]!, positional[1], args.json);
    case 'lineage':
      return withVariant(runsDir, need(1, 'RUN:VARIANT')[0]!, (run, v) => {
        showLineage(run, v, args.json);
        return 0;
      });
    case 'best':
      out(
        bestVariants(
          runsDir,
          positional,
          { domain: args.domain, split: args.split, top: args.top },
          args.json,
          (line) => process.stderr.write(`hyperagents archive best: ${line}\n`),
        ),
      );
      return 0;
    case 'tasks':
      return withVariant(runsDir, need(1, 'RUN:VARIANT')[0]!, (run, v) => {
        listTasks(run, v, { failedOnly: args.failed, domain: args.domain, split: args.split }, args.json);
        return 0;
      });
    case 'regressions':
      return withRun(runsDir, need(1, 'RUN')[0]!, (run) => showRegressions(run, args, args.json));
    case 'export': {
      const [ref] = need(1, 'RUN');
      if (args.format === undefined)
        throw new UsageError('archive export needs --format jsonl or --format csv.');
      const format = args.format;
      withRun(runsDir, ref!, (run) =>
        out(format === 'csv' ? exportCsv(run.reader) : exportJsonl(run.reader)),
      );
      return 0;
    }
    case 'bundle': {
      const { bundleCommand } = await import('./archive-bundle.ts');
      return bundleCommand(runsDir, need(1, 'RUN')[0]!, args.o, args.force, args.data);
    }
    case 'verify': {
      const { verifyCommand } = await import('./archive-verify.ts');
      const limits = unpackLimits({
        fileBytes: args.maxFileMb,
        totalBytes: args.maxTotalMb,
        ratio: args.maxRatio,
        entries: args.maxFiles,
      });
      return verifyCommand(need(1, 'FILE (a bundle)')[0]!, limits);
    }
    case undefined:
      out(ARCHIVE_USAGE);
      return 2;
    default:
      throw new UsageError(`Unknown archive command "${sub}". Commands: ${SUBCOMMANDS.join(', ')}.`);
  }
}
