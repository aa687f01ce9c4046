import path from 'node:path';
import { archiveFile, openArchive } from '../../archive/index.ts';
import {
  ALL_SPLITS,
  type DomainRef,
  listDomainNames,
  type Split,
  unknownDomain,
} from '../../domains/index.ts';
import type { DomainTasks } from '../../harness/evaluation/index.ts';
import {
  evaluateStoredVariant,
  gatewayFactory,
  loadDomainTasks,
  parseStoredConfig,
  type RunConfig,
  RunConfigSchema,
  type StoredEvaluationOutcome,
} from '../../harness/run/index.ts';
import { loadEnv } from '../../llm/index.ts';
import { printGatewayWarning } from '../shared/errors.ts';
import { parseOrExplain } from '../shared/parse-usage.ts';
import { locateVariant } from '../shared/run-ref.ts';
import { stopOnSignals } from '../shared/stop-signals.ts';
import { UsageError } from '../shared/usage-error.ts';
import { checkOption } from './config-error.ts';
import { builder } from './eval-args.ts';
import { assertLimitsFit, planOrRefuse } from './loop-prepare.ts';

interface EvalRequest {
  runDir: string;
  variantId: number;
  split: Split;
  evalSamples: number | null;
  evalWorkers: number;
  domains: DomainRef[];
  json: boolean;
}

/** The command line: which variant, on what, every value checked by the run configuration's schema. */
async function parseEvalArgs(argv: string[]): Promise<EvalRequest | 'help'> {
  const parsed = await parseOrExplain(builder(argv), 'hyperagents eval', argv);
  if (parsed.help === true) return 'help';
  const refs = parsed._.map(String);
  if (refs.length !== 1) {
    throw new UsageError(
      'Name one variant as RUN:VARIANT, e.g. hyperagents eval 20260101-120000-000:3 --domains arithmetic.',
    );
  }
  const { runDir, variantId } = locateVariant(refs[0]!, path.resolve(parsed.runs), 'hyperagents eval');
  const split = parsed.split as Split;
  if (!ALL_SPLITS.includes(split))
    throw new UsageError(`--split must be one of ${ALL_SPLITS.join(', ')}, not "${split}".`);
  const { evalSamples: samples, evalWorkers: workers, domains: domainList } = RunConfigSchema.shape;
  const evalSamples = checkOption('--eval-samples', samples, parsed['eval-samples'] ?? null);
  const evalWorkers = checkOption('--eval-workers', workers, parsed['eval-workers']);
  const names = (parsed.domains ?? [])
    .flatMap((d) => String(d).split(','))
    .map((d) => d.trim())
    .filter(Boolean);
  const known = listDomainNames();
  if (names.length === 0) throw new UsageError(`--domains is required. Known domains: ${known.join(', ')}.`);
  const domains = checkOption('--domains', domainList, names);
  const unknown = unknownDomain(domains, known);
  if (unknown !== null) throw new UsageError(unknown);
  return { runDir, variantId, split, evalSamples, evalWorkers, domains, json: parsed.json };
}

/** The variant to evaluate and its run's stored configuration, or the refusal that says why not. */
function storedVariant(runDir: string, variantId: number) {
  const archive = openArchive(archiveFile(runDir));
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
  return { runId: run.id, config, commit: variant.commitSha, codeHash: variant.taskCodeHash };
}

/** Each domain's tasks of the one split asked for; refused when a domain has no such split. */
async function splitTasks(request: EvalRequest, config: RunConfig): Promise<DomainTasks[]> {
  const { split } = request;
  const loaded = await loadDomainTasks({
    domains: request.domains,
    dataset: config.dataset,
    evalSamples: request.evalSamples,
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
  return loaded.map(({ domain, splits }) => ({
    domain: { ...domain, splits: [split] },
    splits: { [split]: splits[split] },
  }));
}

/** `hyperagents eval RUN:VARIANT --domains d [--split test]` past its help (see eval.ts). */
export async function runEval(argv: string[]): Promise<number> {
  const request = await parseEvalArgs(argv);
  if (request === 'help') {
    process.stdout.write(`${await builder([]).getHelp()}\n`);
    return 0;
  }
  const { runDir, variantId, split } = request;
  const stored = storedVariant(runDir, variantId);
  const { config } = stored;
  assertLimitsFit(config.limits, runDir);
  const domains = await splitTasks(request, config);
  const env = loadEnv();
  const plan = planOrRefuse(config, env, runDir);
  const stops = stopOnSignals('stopping the evaluation (press Ctrl-C again to abort at once)');
  try {
    const outcome = await evaluateStoredVariant({
      runDir,
      variantId,
      ...stored,
      domains,
      split,
      evalWorkers: request.evalWorkers,
      sandbox: plan.sandbox,
      cacheable: plan.cacheable,
      startGateway: (dir, onCall) =>
        gatewayFactory({
          seed: config.seed,
          domains,
          models: [config.taskModel],
          script: undefined,
          sim: config.sim,
          record: null,
          replay: null,
          env,
          onWarning: printGatewayWarning,
        })(dir, onCall, null),
      status: () => undefined,
      progress: (line) => process.stderr.write(`${line}\n`),
      signal: stops.signal,
    });
    return reportOutcome(outcome, request, stops.signal.aborted);
  } finally {
    stops.dispose();
  }
}

/** Prints the scores, or why there are none; the exit code. */
function reportOutcome(outcome: StoredEvaluationOutcome, request: EvalRequest, aborted: boolean): number {
  const { runDir, variantId, split } = request;
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
  if (outcome.kind === 'unfinished') {
    process.stderr.write(
      `hyperagents eval: variant ${variantId} has no ${split} score: ${outcome.reason}. The task results that ` +
        'finished are kept in the archive, and running the same command again runs only the rest.\n',
    );
    return 1;
  }
  const { scores } = outcome;
  const names = request.domains.map((d) => d.name);
  const picked = Object.fromEntries(names.map((d) => [d, scores[d]?.[split] ?? null]));
  if (request.json)
    process.stdout.write(`${JSON.stringify({ runDir, variant: variantId, split, scores: picked })}\n`);
  else
    for (const [d, s] of Object.entries(picked))
      process.stdout.write(`variant ${variantId} ${d} ${split}: ${s === null ? '-' : s.toFixed(3)}\n`);
  return aborted ? 130 : 0;
}
