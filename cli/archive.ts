import path from 'node:path';
import yargs from 'yargs';
import type { TaskResultRow } from '../archive/archive.ts';
import { scoreStanding } from '../archive/confirmed-scores.ts';
import { variantFlags } from '../archive/flags.ts';
import { passAtK } from '../archive/pass-at-k.ts';
import type { RunView, Scores, VariantView } from '../archive/read.ts';
import { readMetaTranscript } from '../archive/transcript.ts';
import { variantDiff } from '../archive/variant-diff.ts';
import { ALL_SPLITS } from '../domains/define-domain.ts';
import { diffSummary, storedWorkspaceDiff } from '../harness/evaluation/index.ts';
import { exportCsv, exportJsonl } from './archive-export.ts';
import { type OpenedRun, openVariantRef, variantOf, withRun, withVariant } from './archive-refs.ts';
import { bestVariants, runList } from './archive-runs.ts';
import { parseOrExplain } from './parse-usage.ts';
import { assertRunsFolder, RUNS_OPTION } from './run-ref.ts';
import { resumeCommand } from './self-command.ts';
import { fmtScore, fmtUsd, renderTable } from './text-table.ts';
import { UsageError } from './usage-error.ts';
import { writeStdout } from './write-output.ts';

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
                                   the same, 1 different, 2 bad input

A run is a run id under --runs (default ./runs) or the path of a run folder.
A split is one of ${ALL_SPLITS.join(', ')}.
Options: --runs DIR, --json (machine-readable output).`;

const SUBCOMMANDS = [
  'list',
  'show',
  'diff',
  'lineage',
  'best',
  'tasks',
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
      .strictOptions()
      .help(),
    'hyperagents archive',
    argv,
  );
}

const out = (text: string): void => writeStdout(text.endsWith('\n') ? text : `${text}\n`);
const printJson = (value: unknown): void => out(JSON.stringify(value, null, 2));

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
  if (!Number.isInteger(args.top) || args.top < 1) {
    const got = Number.isNaN(args.top) ? 'something that is not a number' : String(args.top);
    throw new UsageError(`--top must be a whole number of at least 1, not ${got}.`);
  }
  if (args.split !== undefined && !(ALL_SPLITS as readonly string[]).includes(args.split))
    throw new UsageError(`--split must be one of ${ALL_SPLITS.join(', ')}, not "${args.split}".`);
  // list and best without runs named read every run there: a folder that is not there is not "no runs".
  if ((sub === 'list' || sub === 'best') && positional.length === 0) assertRunsFolder(runsDir, '--runs');
  switch (sub) {
    case 'list':
      if (positional[0] === undefined) out(runList(runsDir, args.json));
      else withRun(runsDir, positional[0], (run) => listVariants(run, args.json));
      return 0;
    case 'show':
      return withVariant(runsDir, need(1, 'RUN:VARIANT')[0]!, async (run, v) => {
        await show(run, v, args.json);
        return 0;
      });
    case 'diff':
      return diff(runsDir, need(1, 'RUN:VARIANT')[0]!, positional[1], args.json);
    case 'lineage':
      return withVariant(runsDir, need(1, 'RUN:VARIANT')[0]!, (run, v) => {
        lineage(run, v, args.json);
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
        tasks(run, v, { failedOnly: args.failed, domain: args.domain, split: args.split }, args.json);
        return 0;
      });
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
      return verifyCommand(need(1, 'FILE (a bundle)')[0]!);
    }
    case undefined:
      out(ARCHIVE_USAGE);
      return 2;
    default:
      throw new UsageError(`Unknown archive command "${sub}". Commands: ${SUBCOMMANDS.join(', ')}.`);
  }
}

/** "domain split" column keys present in any variant, in a stable order. */
export function scoreColumns(variants: readonly { scores: Scores }[]): { domain: string; split: string }[] {
  const keys = new Map<string, { domain: string; split: string }>();
  for (const v of variants)
    for (const [domain, splits] of Object.entries(v.scores))
      for (const split of Object.keys(splits)) keys.set(`${domain}\u0000${split}`, { domain, split });
  return [...keys.values()].sort(
    (a, b) => a.domain.localeCompare(b.domain) || a.split.localeCompare(b.split),
  );
}

function listVariants(run: OpenedRun, json: boolean): void {
  const variants = run.reader.variants();
  const info = run.reader.run();
  if (json) {
    printJson({ run: info, variants });
    return;
  }
  const columns = scoreColumns(variants);
  // A variant under way in a run that is not running stays where it is until the run is resumed.
  const unfinished = info !== null && info.state !== 'running';
  const table = renderTable(
    ['id', 'parent', 'status', 'score', ...columns.map((c) => `${c.domain} ${c.split}`), 'cost'],
    variants.map((v) => [
      String(v.id),
      v.parent === null ? '-' : String(v.parent),
      unfinished && v.outcome === 'in_progress' ? 'unfinished' : v.outcome,
      fmtScore(v.score),
      ...columns.map((c) => fmtScore(v.scores[c.domain]?.[c.split]?.score)),
      fmtUsd(v.costUsd),
    ]),
  );
  out([table, ...(info === null ? [] : unfinishedNotes(run.dir, info, variants))].join('\n'));
}

/** What the variant list says under its table about a run that stopped with variants unfinished. Pure. */
export function unfinishedNotes(
  runDir: string,
  run: Pick<RunView, 'state' | 'generationsPlanned'>,
  variants: readonly Pick<VariantView, 'id' | 'outcome'>[],
): string[] {
  if (run.state === 'running') return [];
  const open = variants.filter((v) => v.outcome === 'in_progress').map((v) => v.id);
  const planned = run.generationsPlanned;
  const beyond = planned === null ? [] : open.filter((id) => id > planned);
  const within = open.filter((id) => !beyond.includes(id));
  const notes: string[] = [];
  if (run.state === 'interrupted')
    notes.push(
      'The run was interrupted: the process running it ended without stopping it. Continue it with: ' +
        resumeCommand(runDir),
    );
  else if (within.length > 0)
    notes.push(
      `Variant ${within.join(', ')} stopped before its end; continue the run with: ${resumeCommand(runDir)}`,
    );
  if (beyond.length > 0) {
    notes.push(
      `Variant ${beyond.join(', ')} was started before the run was resumed with --generations ${planned} and is ` +
        `left unfinished; to finish it: ${resumeCommand(runDir)} --generations ${Math.max(...beyond)}`,
    );
  }
  return notes.length === 0 ? [] : ['', ...notes];
}

async function show(run: OpenedRun, v: VariantView, json: boolean): Promise<void> {
  const parent = v.parent === null ? null : run.reader.variant(v.parent);
  const flags = await variantFlags(run.reader, run.dir, v, parent);
  const transcript = readMetaTranscript(run.dir, v.id);
  const meta =
    transcript === null
      ? null
      : { status: transcript.status, summary: transcript.summary, toolCalls: transcript.toolCalls };
  const noise = noiseOf(run, v);
  const repeated = passAtK(run.reader.taskResults(v.id, { attempt: 'all' }));
  if (json) {
    printJson({
      run: run.id,
      variant: v,
      parentScore: parent?.score ?? null,
      ...noise,
      passAtK: repeated,
      metaAgent: meta,
      flags,
    });
    return;
  }
  const delta =
    v.score !== null && parent?.score != null ? ` (${signed(v.score - parent.score)} on its parent)` : '';
  const lines = [
    `variant ${v.id} of run ${run.id}: ${v.outcome}, score ${fmtScore(v.score)}${delta}`,
    `parent: ${v.parent === null ? 'none (the initial agent)' : v.parent}${v.selectionReason ? ` (${v.selectionReason})` : ''}`,
    `commit: ${v.commit ?? 'none'}`,
    `changed: ${v.changedFiles.length === 0 ? '-' : v.changedFiles.join(', ')}`,
    ...noiseLines(noise),
    ...repeated.map(
      (p) =>
        `pass@k, ${p.domain} ${p.split} (${p.attempts} attempts at each of ${p.tasks} tasks): ` +
        Object.entries(p.passAt)
          .map(([k, value]) => `pass@${k} ${fmtScore(value)}`)
          .join(', '),
    ),
  ];
  if (v.failureReason !== null) lines.push(`failure: ${v.failureReason}`);
  // Flags never select anything: they say where a score may come from gaming the grader.
  for (const flag of flags) lines.push(`flag ${flag.kind}: ${flag.detail}`);
  lines.push(`cost: ${fmtUsd(v.costUsd)} in ${v.llmCalls} model call(s)`);
  const columns = scoreColumns([v]);
  if (columns.length > 0) {
    lines.push(
      '',
      renderTable(
        ['domain', 'split', 'stage', 'score', 'correct', 'wrong', 'parse failures', 'errors', 'tasks'],
        columns.map(({ domain, split }) => {
          const s = v.scores[domain]![split]!;
          const cells = [s.correct, s.wrong, s.parseFailures, s.errors].map(String);
          return [domain, split, s.stage, fmtScore(s.score), ...cells, `${s.nTasks}/${s.nTotal}`];
        }),
      ),
    );
  }
  lines.push('');
  if (meta === null)
    lines.push(v.parent === null ? 'MetaAgent: none (the initial agent)' : 'MetaAgent: left no transcript');
  else
    lines.push(
      `MetaAgent (${meta.status}, ${meta.toolCalls ?? '?'} tool calls): ${meta.summary ?? '(no summary)'}`,
    );
  out(lines.join('\n'));
}

/** What the run knows of this variant's score under noise (see scoreStanding). */
function noiseOf(run: OpenedRun, v: VariantView) {
  return scoreStanding(
    v,
    v.id === 0 ? null : (run.reader.variant(0)?.score ?? null),
    run.reader.confirmedScores(),
    run.reader.noiseFloor(),
    run.reader.run()?.best?.id ?? null,
  );
}

function noiseLines(noise: ReturnType<typeof noiseOf>): string[] {
  const lines: string[] = [];
  if (noise.confirmed !== null)
    lines.push(
      `confirmed: ${fmtScore(noise.confirmed.score)} on ${noise.confirmed.attempts.length} fresh attempts at the ` +
        `validation split (raw ${fmtScore(noise.confirmed.raw)})${noise.reportedBest ? ": the run's reported best" : ''}`,
    );
  if (noise.noiseFloor !== null) {
    const floor = `±${noise.noiseFloor.spread.toFixed(3)} (variant 0 on ${noise.noiseFloor.scores.length} attempts: ${noise.noiseFloor.scores.map(fmtScore).join(', ')})`;
    lines.push(`noise floor: ${floor}`);
    if (noise.gainOverInitial !== null && noise.gainOverInitial > 0)
      lines.push(
        `over variant 0: ${signed(noise.gainOverInitial)}, ${noise.withinNoise ? 'within noise' : 'beyond the noise floor'}`,
      );
  }
  return lines;
}

const signed = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(3)}`;

async function diff(runsDir: string, a: string, b: string | undefined, json: boolean): Promise<number> {
  return withVariant(runsDir, a, async (run, v) => {
    let base: VariantView;
    if (b === undefined) {
      if (v.parent === null)
        throw new UsageError(
          `Variant ${v.id} of run ${run.id} is the initial agent: it has no parent to diff against.`,
        );
      base = variantOf(run, v.parent);
    } else if (/^\d+$/.test(b)) {
      base = variantOf(run, Number(b));
    } else {
      const other = openVariantRef(runsDir, b);
      base = other.variant;
      if (other.run.dir !== run.dir) {
        other.run.reader.close();
        throw new UsageError(
          "diff compares variants of one run (their commits live in that run's variants.git).",
        );
      }
      other.run.reader.close();
    }
    const noCommit = [base, v].find((x) => x.commit === null);
    if (noCommit !== undefined) {
      throw new UsageError(
        `Variant ${noCommit.id} of run ${run.id} has no commit${noCommit.failureReason ? ` (${noCommit.failureReason})` : ''}: there is no change to show.`,
      );
    }
    const result = await variantDiff(run.dir, base.commit!, v.commit!);
    if (!result.ok) {
      process.stderr.write(`hyperagents archive diff: git could not diff the variants: ${result.reason}\n`);
      return 1;
    }
    if (json) printJson({ run: run.id, from: base.id, to: v.id, patch: result.patch });
    else out(result.patch === '' ? `variants ${base.id} and ${v.id} have the same code` : result.patch);
    return 0;
  });
}

function lineage(run: OpenedRun, v: VariantView, json: boolean): void {
  const path = run.reader.lineage(v.id);
  const rows = path.map((step, i) => {
    const before = i === 0 ? null : path[i - 1]!.score;
    return {
      id: step.id,
      parent: step.parent,
      outcome: step.outcome,
      score: step.score,
      delta: step.score !== null && before !== null ? step.score - before : null,
      changed: step.changedFiles,
      summary: readMetaTranscript(run.dir, step.id)?.summary ?? null,
    };
  });
  if (json) {
    printJson({ run: run.id, variant: v.id, lineage: rows });
    return;
  }
  out(
    renderTable(
      ['id', 'status', 'score', 'delta', 'changed', 'MetaAgent summary'],
      rows.map((r) => [
        String(r.id),
        r.outcome,
        fmtScore(r.score),
        r.delta === null ? '-' : signed(r.delta),
        r.changed.join(',') || '-',
        (r.summary ?? '-').replace(/\s+/g, ' ').slice(0, 100),
      ]),
    ),
  );
}

function tasks(
  run: OpenedRun,
  v: VariantView,
  filter: { failedOnly: boolean; domain?: string | undefined; split?: string | undefined },
  json: boolean,
): void {
  const domains = run.reader.run()?.domains ?? [];
  if (filter.domain !== undefined && !domains.includes(filter.domain)) {
    throw new UsageError(
      `--domain ${filter.domain}: run ${run.id} has no such domain (it has ${domains.join(', ') || 'none'}).`,
    );
  }
  const rows = run.reader.taskResults(v.id, {
    failedOnly: filter.failedOnly,
    ...(filter.domain === undefined ? {} : { domain: filter.domain }),
    ...(filter.split === undefined ? {} : { split: filter.split }),
  });
  if (json) {
    printJson(rows);
    return;
  }
  if (rows.length === 0) {
    out(`Variant ${v.id} has no ${filter.failedOnly ? 'failed ' : ''}task results.`);
    return;
  }
  out(
    renderTable(
      ['domain', 'split', 'task', 'outcome', 'score', 'prediction', 'latency', 'cost', 'reused'],
      rows.map((t) => [
        t.domain,
        t.split,
        t.taskId,
        t.outcome,
        t.score.toFixed(2),
        predictionCell(t.prediction),
        t.latencyMs === null ? '-' : `${t.latencyMs} ms`,
        fmtUsd(t.costUsd),
        t.reused ? 'yes' : '',
      ]),
    ),
  );
  for (const t of rows) {
    const block = workspaceBlock(t);
    if (block !== null) out(block);
  }
}

/** A prediction in the table: a workspace task's diff as its size, any other cut to one short line. */
function predictionCell(prediction: string | null): string {
  const diff = storedWorkspaceDiff(prediction);
  if (diff !== null) return `diff: ${diffSummary(diff)}`;
  return (prediction ?? '-').replace(/\s+/g, ' ').slice(0, 40);
}

/** Lines of a diff or test output printed per task; the rest is in --json. */
const SHOWN_LINES = 60;

/** A workspace task's diff and the test output its grader saw, below the table; null for other tasks. */
function workspaceBlock(t: TaskResultRow): string | null {
  const diff = storedWorkspaceDiff(t.prediction);
  if (diff === null && t.log === null) return null;
  const cut = (text: string): string => {
    const lines = text.replace(/\n$/, '').split('\n');
    return lines.length <= SHOWN_LINES
      ? lines.join('\n')
      : `${lines.slice(0, SHOWN_LINES).join('\n')}\n[${lines.length - SHOWN_LINES} more lines: --json shows all]`;
  };
  return [
    '',
    `${t.domain} ${t.split} ${t.taskId}: ${t.outcome}${t.detail === null ? '' : ` (${t.detail})`}`,
    diff === null
      ? 'diff: none (no workspace was collected)'
      : diff === ''
        ? 'diff: no change'
        : `diff:\n${cut(diff)}`,
    t.log === null ? 'test output: none' : `test output:\n${cut(t.log)}`,
  ].join('\n');
}
