import { readFileSync } from 'node:fs';
import path from 'node:path';
import yargs from 'yargs';
import { ALL_SPLITS, type Domain, type Split } from '../domains/define-domain.ts';
import { listDomainNames, loadDomain } from '../domains/discover.ts';
import { openDomain } from '../domains/open-domain.ts';
import { DOMAIN_REF_HELP, parseDomainRef } from '../domains/reference.ts';
import { checkDomain, createGradeContext, type DomainReport } from '../harness/evaluation/index.ts';
import { resolveSandbox } from '../harness/process/index.ts';
import { PROJECT_ROOT } from '../harness/run/index.ts';
import { datasetFlags, withDatasetFlags } from './dataset-flags.ts';
import { helpWidth, parseOrExplain } from './parse-usage.ts';
import { UsageError } from './usage-error.ts';

const USAGE = `hyperagents domains [--json]
hyperagents domains test REF [--answers FILE] [--json] [dataset flags]

Lists the benchmark domains, or checks one. REF is ${DOMAIN_REF_HELP}.

"domains test" without --answers grades every gold answer (each must score 1)
and runs the conformance checks (ids unique and stable, splits disjoint, loading
deterministic, a wrong answer scores below 1); with --answers FILE (JSON Lines
of {"id", "response"}) it grades those answers. Exit code 1 when a check fails,
2 when the answers file cannot be graded (empty, a task answered twice).`;

function builder(argv: string[]) {
  return withDatasetFlags(
    yargs(argv)
      .scriptName('hyperagents domains')
      .usage(USAGE)
      .option('answers', {
        type: 'string',
        requiresArg: true,
        describe: 'JSON Lines of {"id", "response"} to grade',
      })
      .option('json', { type: 'boolean', default: false, describe: 'print JSON' })
      .help(false)
      .version(false)
      .option('help', { type: 'boolean', alias: 'h', describe: 'show this help' })
      .strictOptions()
      .exitProcess(false)
      .wrap(helpWidth()),
  );
}

interface Listed {
  name: string;
  description: string;
  splits: Split[];
  /** Tasks per split. */
  sizes: Partial<Record<Split, number>>;
  metric: string;
  stagedSamples: number;
}

async function describeDomain(domain: Domain): Promise<Listed> {
  const sizes: Listed['sizes'] = {};
  for (const split of ALL_SPLITS)
    if (domain.splits.includes(split)) sizes[split] = (await domain.load(split)).length;
  return {
    name: domain.name,
    description: domain.description,
    splits: [...domain.splits],
    sizes,
    metric: domain.metric,
    stagedSamples: domain.stagedSamples,
  };
}

async function list(json: boolean): Promise<void> {
  const rows: Listed[] = [];
  for (const name of listDomainNames()) rows.push(await describeDomain(await loadDomain(name)));
  if (json) {
    process.stdout.write(`${JSON.stringify(rows)}\n`);
    return;
  }
  for (const r of rows) {
    const sizes = Object.entries(r.sizes)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ');
    process.stdout.write(
      `${r.name.padEnd(12)} ${r.description}\n${''.padEnd(12)} splits: ${sizes}; metric: ${r.metric}; staged sample: ${r.stagedSamples}\n`,
    );
  }
  process.stdout.write(`\nAlso: ${DOMAIN_REF_HELP}. Check one with: hyperagents domains test REF\n`);
}

const ANSWER_LINE = 'Each line is {"id": ..., "response": ...}, one per task.';

/** Reads `{"id", "response"}` lines; a bad line, a repeated id or no answer at all is the user's to fix. */
function readAnswers(file: string): Map<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'EISDIR'
        ? `--answers ${file} is a folder: give a JSON Lines file. ${ANSWER_LINE}`
        : code === 'ENOENT'
          ? `--answers ${file}: no such file. Give JSON Lines of {"id": ..., "response": ...}.`
          : `--answers ${file} cannot be read (${code ?? (error as Error).message}).`,
    );
  }
  const answers = new Map<string, unknown>();
  const lineOf = new Map<string, number>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`--answers ${file}, line ${i + 1}: not valid JSON. ${ANSWER_LINE}`);
    }
    const row = value as { id?: unknown; response?: unknown } | null;
    if (
      typeof row !== 'object' ||
      row === null ||
      (typeof row.id !== 'string' && typeof row.id !== 'number') ||
      !('response' in row)
    ) {
      throw new UsageError(`--answers ${file}, line ${i + 1}: each line needs an "id" and a "response".`);
    }
    const id = String(row.id);
    const earlier = lineOf.get(id);
    if (earlier !== undefined) {
      throw new UsageError(
        `--answers ${file}, line ${i + 1}: task ${id} was answered on line ${earlier} already. Give each task ` +
          'one answer, so the score says which one was graded.',
      );
    }
    lineOf.set(id, i + 1);
    answers.set(id, row.response);
  });
  if (answers.size === 0)
    throw new UsageError(`--answers ${file} holds no answers, so there is nothing to grade. ${ANSWER_LINE}`);
  return answers;
}

function printReport(report: DomainReport): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  for (const r of report.results)
    out(`${r.split.padEnd(5)} ${r.id.padEnd(24)} ${r.score.toFixed(2)}${r.detail ? `  ${r.detail}` : ''}`);
  for (const s of report.skipped) out(`skipped line ${s.line}: ${s.reason}`);
  for (const c of report.checks) out(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.message}`);
  out(
    `${report.domain}: ${report.tasks} tasks, ${report.results.length} graded, score ${report.score.toFixed(3)}`,
  );
}

type Parsed = Awaited<ReturnType<ReturnType<typeof builder>['parseAsync']>>;

async function test(refText: string, parsed: Parsed): Promise<number> {
  const ref = parseDomainRef(refText);
  if (!ref.ok) throw new UsageError(ref.message);
  const opened = await openDomain(ref.ref, datasetFlags(parsed));
  if (!opened.ok) throw new UsageError(opened.message);
  const answers = typeof parsed.answers === 'string' ? readAnswers(path.resolve(parsed.answers)) : undefined;
  const resolved = resolveSandbox('auto');
  const sandbox =
    resolved.kind === 'bwrap' ? resolved : { kind: 'none' as const, why: 'bubblewrap is not installed' };
  if (sandbox.kind === 'none' && !parsed.json)
    process.stderr.write(
      'Warning: bubblewrap is not installed, so code answers are graded without a sandbox.\n',
    );
  const ctx = createGradeContext({ sandbox, nodeModules: path.join(PROJECT_ROOT, 'node_modules') });
  const report = await checkDomain(opened.domain, ctx, answers === undefined ? {} : { answers });
  if (parsed.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else printReport(report);
  return report.checks.every((c) => c.ok) ? 0 : 1;
}

/** `hyperagents domains [test REF ...]`. */
export async function domains(argv: string[]): Promise<number> {
  const parsed = await parseOrExplain(builder(argv), 'hyperagents domains', argv);
  if (parsed.help === true) {
    process.stdout.write(`${await builder([]).getHelp()}\n`);
    return 0;
  }
  const words = parsed._.map(String);
  if (words.length === 0) {
    for (const flag of [
      'answers',
      'input-fields',
      'answer-field',
      'id-field',
      'split-field',
      'metric',
      'choices',
      'answer-pattern',
    ]) {
      if ((parsed as Record<string, unknown>)[flag] !== undefined)
        throw new UsageError(
          `--${flag} belongs to "hyperagents domains test REF"; the listing takes only --json.`,
        );
    }
    await list(parsed.json);
    return 0;
  }
  if (words[0] !== 'test') {
    throw new UsageError(
      `domains takes no word "${words[0]}": "hyperagents domains" lists the domains, and ` +
        '"hyperagents domains test REF" checks one.',
    );
  }
  if (words.length !== 2) {
    throw new UsageError(
      `"hyperagents domains test" takes one REF (${DOMAIN_REF_HELP}), ${words.length === 1 ? 'none was given' : `not ${words.length - 1}: ${words.slice(1).join(' ')}`}.`,
    );
  }
  return test(words[1]!, parsed);
}
