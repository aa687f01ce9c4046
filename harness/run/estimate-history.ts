import type { ArchiveReader, VariantView } from '../../archive/index.ts';
import { type Price, type StageCounts, usdText } from './estimate-units.ts';

/**
 * An estimate from what an earlier run measured (its archive): how a generation tends to end, the model calls
 * and tokens a MetaAgent and a task attempt take, and the seconds a generation takes for the calls it makes.
 * Applied to another configuration's task counts, attempts and prices, it gives one expected figure rather
 * than a range. The sim's answers, a model's verbosity and the evaluation cache's hits all show in these rates.
 */
export interface HistoryRates {
  /** Finished child generations measured (variant 0 apart). */
  generations: number;
  /** Shares of children that were rejected or failed, evaluated on the staged sample only, or in full. */
  shares: { ended: number; staged: number; full: number };
  /** Model calls of one generation's MetaAgent, and its tokens per call. */
  metaCalls: number;
  metaTokens: { input: number; output: number };
  /** TaskAgent calls per task attempt (below 1 where the evaluation cache answered), and tokens per call. */
  callsPerAttempt: number;
  taskTokens: { input: number; output: number };
  /**
   * Seconds of a child generation: `base` plus `perCall` for each TaskAgent call. `perCall` is the pace of
   * the TaskAgent's calls on the workers, measured between the calls of each evaluation (variant 0's too), so
   * a run on more tasks than the one measured (a pilot's few) takes longer by what those calls take.
   */
  seconds: { base: number; perCall: number };
  /**
   * Seconds of variant 0's evaluation outside its calls' pace (the agent's build, the workers' start): it does
   * not grow with the tasks.
   */
  initialBase: number;
  /**
   * Seconds of `--confirm-top`'s fresh attempts per TaskAgent call, its TaskAgent builds included; 0 when the
   * run confirmed nothing.
   */
  confirmPerCall: number;
  /**
   * Seconds a new run spends outside its variants and their confirmation: from the run's start to variant 0
   * (the variant repository, the initial agent's build), and from the last variant (or confirmation) to the
   * end. 0 when the run has not ended.
   */
  setupSec: number;
}

const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
const ms = (v: VariantView): number | null =>
  v.finishedAt === null ? null : Date.parse(v.finishedAt) - Date.parse(v.createdAt);

type HistoryReader = Pick<ArchiveReader, 'variants' | 'llmCalls' | 'taskResults' | 'run' | 'confirmedScores'>;
type Confirmed = ReadonlyMap<number, ReturnType<ArchiveReader['confirmedScores']>[number]>;
type Tokens = { input: number; output: number };

const perCall = (t: Tokens, n: number): Tokens =>
  n === 0 ? { input: 0, output: 0 } : { input: t.input / n, output: t.output / n };

/** The rates of the finished generations in an archive; null when it has no finished child to measure. */
export function historyRates(reader: HistoryReader): HistoryRates | null {
  const variants = reader.variants();
  const children = variants.filter((v) => v.id > 0 && v.outcome !== 'in_progress' && ms(v) !== null);
  if (children.length === 0) return null;
  const count = (o: VariantView['outcome'][]) => children.filter((v) => o.includes(v.outcome)).length;
  const shares = {
    ended: count(['rejected', 'failed']) / children.length,
    staged: count(['staged_only']) / children.length,
    full: count(['evaluated']) / children.length,
  };
  // `--confirm-top` attempts a few variants again after the last generation: those calls and attempts are
  // measured apart (they come after the variant finished), and the estimate adds them for its own setting.
  const confirmed: Confirmed = new Map(reader.confirmedScores().map((c) => [c.variantId, c]));
  const kids = measureChildren(reader, variants, children, confirmed);
  const zero = measureVariantZero(reader, variants);
  // A TaskAgent call's tokens count variant 0's calls too: in a short run every child may have been
  // rejected before its evaluation, and the tasks still cost what variant 0's calls did.
  const taskTokens = perCall(
    {
      input: kids.taskTokens.input + zero.tokens.input,
      output: kids.taskTokens.output + zero.tokens.output,
    },
    kids.taskCalls + zero.allCalls,
  );
  const pace = callPace([zero.times, ...kids.callTimes]);
  const outside = timeOutsideVariants(reader, variants, confirmed);
  const confirmCalls = kids.confirmCalls + zero.allCalls - zero.times.length;
  const { points } = kids;
  return {
    generations: children.length,
    shares,
    metaCalls: kids.metaCalls / children.length,
    metaTokens: perCall(kids.metaTokens, kids.metaCalls),
    callsPerAttempt: kids.attempts === 0 ? 1 : kids.taskCalls / kids.attempts,
    taskTokens,
    seconds: {
      base: Math.max(0, mean(points.map((p) => p.y)) - pace * mean(points.map((p) => p.x))),
      perCall: pace,
    },
    initialBase: zero.ms === null ? 0 : Math.max(0, zero.ms / 1000 - pace * zero.times.length),
    confirmPerCall: confirmCalls === 0 ? 0 : outside.confirmMs / 1000 / confirmCalls,
    setupSec: Math.max(0, outside.setupMs / 1000),
  };
}

/**
 * What the finished children measured: their MetaAgent's and TaskAgent's calls and tokens, their task
 * attempts, the times of their TaskAgent calls, and per child its calls against its seconds (`points`). Task
 * calls after a child finished are `--confirm-top`'s, counted apart.
 */
function measureChildren(
  reader: HistoryReader,
  variants: readonly VariantView[],
  children: readonly VariantView[],
  confirmed: Confirmed,
) {
  const slotFreed = slotFreedOf(variants);
  const measured = {
    metaCalls: 0,
    taskCalls: 0,
    attempts: 0,
    confirmCalls: 0,
    metaTokens: { input: 0, output: 0 },
    taskTokens: { input: 0, output: 0 },
    points: [] as { x: number; y: number }[],
    callTimes: [] as number[][],
  };
  for (const v of children) {
    const finished = Date.parse(v.finishedAt ?? v.createdAt);
    const times: number[] = [];
    for (const call of reader.llmCalls(v.id)) {
      if (call.role !== 'task' && call.role !== 'meta') continue;
      if (call.role === 'task' && Date.parse(call.ts) > finished) {
        measured.confirmCalls++;
        continue;
      }
      const tokens = call.role === 'meta' ? measured.metaTokens : measured.taskTokens;
      tokens.input += call.inputTokens;
      tokens.output += call.outputTokens;
      if (call.role === 'meta') measured.metaCalls++;
      else times.push(Date.parse(call.ts));
    }
    measured.taskCalls += times.length;
    measured.callTimes.push(times.sort((a, b) => a - b));
    const firstConfirming = confirmed.get(v.id)?.firstAttempt ?? Number.POSITIVE_INFINITY;
    measured.attempts += reader
      .taskResults(v.id, { attempt: 'all' })
      .filter((r) => r.attempt < firstConfirming).length;
    measured.points.push({ x: times.length, y: (finished - slotFreed(v)) / 1000 });
  }
  return measured;
}

/**
 * When a generation's time starts: at the finish that freed its slot (choosing the parent and setting up its
 * worktree come before its row is written).
 */
function slotFreedOf(variants: readonly VariantView[]): (v: VariantView) => number {
  const finishes = variants
    .map((v) => (v.finishedAt === null ? null : Date.parse(v.finishedAt)))
    .filter((t): t is number => t !== null)
    .sort((a, b) => a - b);
  return (v) => {
    const created = Date.parse(v.createdAt);
    const before = finishes.filter((t) => t <= created);
    return before.length === 0 ? created : before[before.length - 1]!;
  };
}

/** Variant 0's TaskAgent calls: their tokens, all of them, the times of those before it finished, its time. */
function measureVariantZero(reader: HistoryReader, variants: readonly VariantView[]) {
  const zero = variants.find((v) => v.id === 0);
  const calls = zero === undefined ? [] : reader.llmCalls(0).filter((c) => c.role === 'task');
  const finished = zero?.finishedAt == null ? Number.POSITIVE_INFINITY : Date.parse(zero.finishedAt);
  return {
    tokens: {
      input: calls.reduce((n, c) => n + c.inputTokens, 0),
      output: calls.reduce((n, c) => n + c.outputTokens, 0),
    },
    allCalls: calls.length,
    times: calls
      .map((c) => Date.parse(c.ts))
      .filter((t) => t <= finished)
      .sort((a, b) => a - b),
    ms: zero === undefined ? null : ms(zero),
  };
}

/** Milliseconds of `--confirm-top` after the last variant, and of the run outside its variants (0 unfinished). */
function timeOutsideVariants(reader: HistoryReader, variants: readonly VariantView[], confirmed: Confirmed) {
  const run = reader.run();
  const first = Math.min(...variants.map((v) => Date.parse(v.createdAt)));
  const last = Math.max(...variants.map((v) => (v.finishedAt === null ? 0 : Date.parse(v.finishedAt))));
  const confirmedAt = Math.max(last, ...[...confirmed.values()].map((c) => Date.parse(c.createdAt)));
  const confirmMs = confirmed.size === 0 ? 0 : confirmedAt - last;
  const setupMs =
    run === null || run.finishedAt === null
      ? 0
      : first - Date.parse(run.createdAt) + Math.max(0, Date.parse(run.finishedAt) - last - confirmMs);
  return { confirmMs, setupMs };
}

/**
 * Seconds a TaskAgent call adds to an evaluation: the time between one call and the next, pooled over the
 * evaluations given (each call's times in order). Each evaluation's longest wait is left out: it is the start
 * of its second stage (the staged sample, then the rest), not the calls' pace. 0 with too few calls to tell.
 */
export function callPace(evaluations: readonly (readonly number[])[]): number {
  let sum = 0;
  let steps = 0;
  for (const times of evaluations) {
    if (times.length < 3) continue;
    const waits = times.slice(1).map((t, i) => t - times[i]!);
    sum += waits.reduce((a, b) => a + b, 0) - Math.max(...waits);
    steps += waits.length - 1;
  }
  return steps === 0 ? 0 : sum / steps / 1000;
}

export interface PlannedRun {
  generations: number;
  parallel: number;
  evalRepeats: number;
  skipStagedEval: boolean;
  tasks: StageCounts;
  /** Validation tasks (of the full stage): what `--noise-floor` and `--confirm-top` attempt again. */
  valTasks: number;
  noiseFloor: number;
  confirmTop: number;
  metaPrice: Price;
  taskPrice: Price;
  /** Whether variant 0 is evaluated first (a new run). */
  initialEval: boolean;
  /** Seconds the command takes to start before its run begins (measured on this machine now). */
  startupSec: number;
}

export interface PointEstimate {
  perGeneration: { calls: number; usd: number; seconds: number };
  initial: { calls: number; usd: number; seconds: number };
  total: { calls: number; usd: number; seconds: number };
}

/** Fresh attempts of `--confirm-top` per confirmed variant (as the run makes them). */
const CONFIRM_ATTEMPTS = 4;

const dollars = (tokens: { input: number; output: number }, calls: number, price: Price): number =>
  (calls * (tokens.input * price.input + tokens.output * price.output)) / 1_000_000;

/** What `plan` is expected to spend and take at the rates measured in `rates`. Pure. */
export function estimateFromHistory(rates: HistoryRates, plan: PlannedRun): PointEstimate {
  const staged = plan.tasks.staged.plain + plan.tasks.staged.workspace;
  const full = plan.tasks.full.plain + plan.tasks.full.workspace;
  const evaluated = 1 - rates.shares.ended;
  // A child is evaluated on the staged sample, and those that pass it on the rest of the full stage.
  const attempts =
    plan.evalRepeats *
    (plan.skipStagedEval ? evaluated * full : rates.shares.staged * staged + rates.shares.full * full);
  const taskCalls = attempts * rates.callsPerAttempt;
  const perGeneration = {
    calls: rates.metaCalls + taskCalls,
    usd:
      dollars(rates.metaTokens, rates.metaCalls, plan.metaPrice) +
      dollars(rates.taskTokens, taskCalls, plan.taskPrice),
    seconds: rates.seconds.base + rates.seconds.perCall * taskCalls,
  };
  // Variant 0 answers every task of the full stage (nothing is cached yet), plus the noise floor's attempts.
  const zeroCalls = plan.initialEval ? plan.evalRepeats * full + plan.noiseFloor * plan.valTasks : 0;
  const confirmCalls = plan.confirmTop * CONFIRM_ATTEMPTS * plan.valTasks;
  const extraCalls = zeroCalls + confirmCalls;
  const pace = rates.seconds.perCall;
  // Confirmation at the rate it was measured; where it was not, each confirmed variant is built and
  // attempted as variant 0 was.
  const confirmSec =
    confirmCalls === 0
      ? 0
      : rates.confirmPerCall > 0
        ? confirmCalls * rates.confirmPerCall
        : plan.confirmTop * rates.initialBase + confirmCalls * pace;
  const initial = {
    calls: extraCalls,
    usd: dollars(rates.taskTokens, extraCalls, plan.taskPrice),
    seconds:
      (zeroCalls === 0 ? 0 : rates.initialBase + zeroCalls * pace) +
      confirmSec +
      (plan.initialEval ? rates.setupSec : 0) +
      plan.startupSec,
  };
  const rounds = Math.ceil(plan.generations / plan.parallel);
  return {
    perGeneration,
    initial,
    total: {
      calls: Math.round(perGeneration.calls * plan.generations + initial.calls),
      usd: perGeneration.usd * plan.generations + initial.usd,
      seconds: perGeneration.seconds * rounds + initial.seconds,
    },
  };
}

/** The lines `--estimate` prints for a point estimate, naming the run it was measured on. */
export function historyLines(
  what: string,
  source: string,
  rates: HistoryRates,
  e: PointEstimate,
  duration: (seconds: number) => string,
): string[] {
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  return [
    `Estimate for ${what}, at the rates of ${rates.generations} generation(s) of ${source}: about ` +
      `${n(e.total.calls)} model calls, ${usdText(e.total.usd)}, ${duration(e.total.seconds)}.`,
    `  Per generation: ${n(e.perGeneration.calls)} calls, ${usdText(e.perGeneration.usd)}, ` +
      `${duration(e.perGeneration.seconds)}.` +
      (e.initial.seconds > 0
        ? ` Besides: ${n(e.initial.calls)} calls of variant 0's evaluation, noise floor and confirmation, ` +
          `${usdText(e.initial.usd)}, ${duration(e.initial.seconds)} with the run's start-up and setup.`
        : ''),
    `  Measured there: ${pct(rates.shares.ended)} of children rejected or failed, ${pct(rates.shares.staged)} ` +
      `evaluated on the staged sample only, ${pct(rates.shares.full)} in full; a MetaAgent made ` +
      `${rates.metaCalls.toFixed(1)} calls; ${rates.callsPerAttempt.toFixed(2)} TaskAgent calls per task attempt ` +
      '(fewer than 1 where the evaluation cache answered). Another landscape, model or prompt changes these.',
  ];
}
