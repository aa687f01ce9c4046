import path from 'node:path';
import yargs from 'yargs';
import { openArchive } from '../archive/archive.ts';
import { ALL_SPLITS, type Split } from '../domains/define-domain.ts';
import { listDomainNames } from '../domains/discover.ts';
import { resolveSandbox } from '../harness/process/index.ts';
import {
  evaluateStoredVariant,
  gatewayFactory,
  loadDomainTasks,
  parseStoredConfig,
  RunConfigSchema,
} from '../harness/run/index.ts';
import { closeMatches } from '../llm/close-matches.ts';
import { loadEnv } from '../llm/env.ts';
import { checkOption } from './config-error.ts';
import { printGatewayWarning } from './errors.ts';
import { assertLimitsFit } from './loop-prepare.ts';
import { helpWidth, parseOrExplain } from './parse-usage.ts';
import { parseVariantRef } from './run-ref.ts';
import { abortExitCode, describeStop, watchStops } from './stop-signals.ts';
import { UsageError } from './usage-error.ts';

export const EVAL_USAGE = `hyperagents eval <run>:<variant> --domains <name[,name...]> [--split test]
    [options]

Evaluates one stored variant of a run (its TaskAgent, at its commit) on a split
of each domain, with the run's task model and seed, and writes the results into
that run's archive. The test split is never shown to agents; this is how to
measure it. The variant's selection score is not changed.`;

function builder(argv: string[]) {
  return yargs(argv)
    .scriptName('hyperagents eval')
    .usage(EVAL_USAGE)
    .option('domains', {
      type: 'string',
      requiresArg: true,
      array: true,
      describe: 'domains, comma-separated',
    })
    .option('split', { type: 'string', requiresArg: true, default: 'test', describe: ALL_SPLITS.join(' | ') })
    .option('runs', {
      alias: 'out',
      type: 'string',
      requiresArg: true,
      default: './runs',
      describe: 'folder that holds the runs (--out, as generate-loop calls it, works too)',
    })
    .option('eval-samples', {
      type: 'number',
      requiresArg: true,
      describe: 'tasks per domain at most (default: all)',
    })
    .option('eval-workers', {
      type: 'number',
      requiresArg: true,
      default: 8,
      describe: 'TaskAgent processes',
    })
    .option('json', { type: 'boolean', default: false, describe: 'print the scores as one JSON object' })
    .help(false)
    .version(false)
    .option('help', { type: 'boolean', alias: 'h', describe: 'show this help' })
    .strictOptions()
    .exitProcess(false)
    .wrap(helpWidth());
}

/** `hyperagents eval RUN:VARIANT --domains d [--split test]`. */
export async function evalCommand(argv: string[]): Promise<number> {
  const parsed = await parseOrExplain(builder(argv), 'hyperagents eval', argv);
  if (parsed.help === true) {
    process.stdout.write(`${await builder([]).getHelp()}\n`);
    return 0;
  }
  const refs = parsed._.map(String);
  if (refs.length !== 1) {
    throw new UsageError(
      'Name one variant as RUN:VARIANT, e.g. hyperagents eval 20260101-120000-000:3 --domains arithmetic.',
    );
  }
  const { runDir, variantId } = parseVariantRef(refs[0]!, path.resolve(parsed.runs), 'hyperagents eval');
  const split = parsed.split as Split;
  if (!ALL_SPLITS.includes(split))
    throw new UsageError(`--split must be one of ${ALL_SPLITS.join(', ')}, not "${split}".`);
  const { evalSamples: samples, evalWorkers: workers } = RunConfigSchema.shape;
  const evalSamples = checkOption('--eval-samples', samples, parsed['eval-samples'] ?? null);
  const evalWorkers = checkOption('--eval-workers', workers, parsed['eval-workers']);
  const names = (parsed.domains ?? [])
    .flatMap((d) => String(d).split(','))
    .map((d) => d.trim())
    .filter(Boolean);
  const known = listDomainNames();
  if (names.length === 0) throw new UsageError(`--domains is required. Known domains: ${known.join(', ')}.`);
  for (const name of names) {
    if (!known.includes(name)) {
      const near = closeMatches(name, known);
      throw new UsageError(
        `Unknown domain "${name}"${near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : ''}. Known domains: ${known.join(', ')}.`,
      );
    }
  }
  const archive = openArchive(path.join(runDir, 'archive.sqlite'));
  const run = archive.getRun();
  const variant = archive.getVariant(variantId);
  archive.close();
  const config = run === undefined ? null : parseStoredConfig(run.config);
  if (run === undefined || config === null) {
    throw new UsageError(
      `${runDir}: the run's stored configuration cannot be read (written by another version).`,
    );
  }
  if (variant?.commitSha == null || variant.taskCodeHash === null) {
    throw new UsageError(
      `Variant ${variantId} of ${runDir} has no code to evaluate (it does not exist, or failed before committing).`,
    );
  }
  assertLimitsFit(config.limits, runDir);
  const loaded = await loadDomainTasks({
    domains: names,
    dataset: config.dataset,
    evalSamples,
    stagedSamples: null,
  });
  if ('error' in loaded) throw new UsageError(loaded.error);
  for (const { domain } of loaded) {
    if (!domain.splits.includes(split)) {
      throw new UsageError(
        `Domain ${domain.name} has no ${split} split (it has ${domain.splits.join(', ')}).`,
      );
    }
  }
  const domains = loaded.map(({ domain, splits }) => ({
    domain: { ...domain, splits: [split] },
    splits: { [split]: splits[split] },
  }));
  const sandbox = resolveSandbox(config.sandbox);
  if (sandbox.kind === 'missing')
    throw new UsageError('The run used --sandbox bwrap, but bubblewrap does not work here.');
  const stops = watchStops({
    first(cause) {
      process.stderr.write(
        `\n${describeStop(cause)}: stopping the evaluation (press Ctrl-C again to abort at once).\n`,
      );
    },
    again: (cause) => process.exit(abortExitCode(cause)),
  });
  try {
    const outcome = await evaluateStoredVariant({
      runDir,
      runId: run.id,
      variantId,
      commit: variant.commitSha,
      codeHash: variant.taskCodeHash,
      config,
      domains,
      split,
      evalWorkers,
      sandbox,
      cacheable: config.simScript === null && config.record === null && config.replay === null,
      startGateway: (dir, onCall) =>
        gatewayFactory({
          seed: config.seed,
          domains,
          models: [config.taskModel],
          script: undefined,
          sim: config.sim,
          record: null,
          replay: null,
          env: loadEnv(),
          onWarning: printGatewayWarning,
        })(dir, onCall, null),
      status: () => undefined,
      progress: (line) => process.stderr.write(`${line}\n`),
      signal: stops.signal,
    });
    if (outcome.kind === 'interrupted') {
      process.stderr.write(
        `hyperagents eval: interrupted; no score is stored for variant ${variantId}'s ${split} split. The task ` +
          'results that finished are kept in the archive, and running the same command again evaluates only ' +
          'the rest.\n',
      );
      return 130;
    }
    if (outcome.kind === 'unanswered') {
      process.stderr.write(
        `hyperagents eval: variant ${variantId} has no ${split} score: ${outcome.reason}. This is the ` +
          "sandbox, its limits or the machine, not the agent's answers: fix the cause and run it again.\n",
      );
      return 1;
    }
    const { scores } = outcome;
    const picked = Object.fromEntries(names.map((d) => [d, scores[d]?.[split] ?? null]));
    if (parsed.json)
      process.stdout.write(`${JSON.stringify({ runDir, variant: variantId, split, scores: picked })}\n`);
    else
      for (const [d, s] of Object.entries(picked))
        process.stdout.write(`variant ${variantId} ${d} ${split}: ${s === null ? '-' : s.toFixed(3)}\n`);
    return stops.signal.aborted ? 130 : 0;
  } finally {
    stops.dispose();
  }
}
