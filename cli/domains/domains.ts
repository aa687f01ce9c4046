import yargs from 'yargs';
import {
  ALL_SPLITS,
  DOMAIN_REF_HELP,
  type Domain,
  listDomainNames,
  loadDomain,
  type Split,
} from '../../domains/index.ts';
import { datasetFlags, withDatasetFlags } from '../shared/dataset-flags.ts';
import { helpWidth, parseOrExplain } from '../shared/parse-usage.ts';
import { UsageError } from '../shared/usage-error.ts';

const USAGE = `hyperagents domains [--json]
hyperagents domains test REF [--answers FILE] [--json] [dataset flags]
hyperagents domains show REF [TASK] [--json] [dataset flags]

Lists the benchmark domains, or checks one. REF is ${DOMAIN_REF_HELP}.

"domains test" without --answers grades every gold answer (each must score 1)
and runs the conformance checks (ids unique and stable, splits disjoint, loading
deterministic) and looks for misconfiguration (gold in the inputs, worked
solutions compared whole, echoing the input scores 1, wrong answers score 1);
with --answers FILE (JSON Lines of {"id", "response"}, or {"id", "files": {PATH:
TEXT}} for a workspace task, written over its starting files) it grades those
answers, and a task without one scores 0. Exit code 1 when a check fails, 2 when
the answers file cannot be graded (empty, a task answered twice).

"domains show" prints what the TaskAgent receives for a task: its input and the
format hint (the first task without TASK).`;

function builder(argv: string[]) {
  return withDatasetFlags(
    yargs(argv)
      .scriptName('hyperagents domains')
      .usage(USAGE)
      .option('answers', {
        type: 'string',
        requiresArg: true,
        describe: 'JSON Lines of {"id", "response"} (or {"id", "files"}) to grade',
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
      'tolerance',
      'correct-field',
      'incorrect-field',
      'prompt-template',
      'few-shot',
    ]) {
      if ((parsed as Record<string, unknown>)[flag] !== undefined)
        throw new UsageError(
          `--${flag} belongs to "hyperagents domains test REF"; the listing takes only --json.`,
        );
    }
    await list(parsed.json);
    return 0;
  }
  if (words[0] === 'show') {
    if (words.length < 2 || words.length > 3)
      throw new UsageError(
        `"hyperagents domains show" takes REF and optionally a TASK id, ${words.length < 2 ? 'no REF was given' : `not: ${words.slice(1).join(' ')}`}.`,
      );
    if (parsed.answers !== undefined)
      throw new UsageError('--answers belongs to "hyperagents domains test REF".');
    const { showTask } = await import('./domain-show.ts');
    return showTask(words[1]!, words[2], datasetFlags(parsed), parsed.json);
  }
  if (words[0] !== 'test') {
    throw new UsageError(
      `domains takes no word "${words[0]}": "hyperagents domains" lists the domains, ` +
        '"hyperagents domains test REF" checks one, and "hyperagents domains show REF [TASK]" shows a task.',
    );
  }
  if (words.length !== 2) {
    throw new UsageError(
      `"hyperagents domains test" takes one REF (${DOMAIN_REF_HELP}), ${words.length === 1 ? 'none was given' : `not ${words.length - 1}: ${words.slice(1).join(' ')}`}.`,
    );
  }
  const { testDomain } = await import('./domain-test.ts');
  return testDomain(words[1]!, {
    flags: datasetFlags(parsed),
    answers: typeof parsed.answers === 'string' ? parsed.answers : undefined,
    json: parsed.json,
  });
}
