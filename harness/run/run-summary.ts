import type { AcceptanceView, Archive, VariantStatus } from '../../archive/index.ts';
import { acceptanceView, reportedBest, spreadOf } from '../../archive/index.ts';
import type { BudgetStop } from '../../llm/index.ts';
import { finishedVariants, scoresBySplit } from '../evaluation/index.ts';
import type { RunContext } from '../generation/index.ts';

export interface RunSummary {
  runId: string;
  runDir: string;
  model: string;
  simulated: boolean;
  generations: number;
  variants: {
    id: number;
    parent: number | null;
    commit: string | null;
    status: VariantStatus;
    validParent: boolean;
    score: number | null;
    scores: Record<string, Partial<Record<'train' | 'val' | 'test', number>>>;
    failureReason: string | null;
    /** How it was decided against its parent under `--accept sequential`; null when evaluated in full. */
    acceptance: AcceptanceView | null;
  }[];
  /**
   * The reported best: with `--confirm-top`, the highest confirmed score (`confirmed`, beside the raw score it
   * was ranked by); else the highest raw score.
   */
  best: { id: number; score: number; rawScore: number; confirmed: boolean } | null;
  /** Variant 0's noise floor (`--noise-floor`): its validation scores on k attempts and their spread. */
  noiseFloor: { spread: number; scores: number[] } | null;
  costUsd: number;
  llmCalls: number;
  /** Why the run ended before its last generation: the budget, or `interrupted` (it can be resumed). */
  stopped: string | null;
}

/**
 * The run's reported best: the highest confirmed score once `--confirm-top` confirmed some, else the best
 * finished variant by selection score (the lowest id among equals).
 */
export function bestVariant(
  archive: Archive,
): { id: number; score: number; rawScore: number; confirmed: boolean } | null {
  let best: { id: number; score: number } | null = null;
  for (const v of finishedVariants(archive).variants()) {
    if (v.step !== 'done' || v.selectionScore === null) continue;
    if (best === null || v.selectionScore > best.score) best = { id: v.id, score: v.selectionScore };
  }
  return reportedBest(best, archive.listConfirmedScores());
}

/**
 * One line after each generation: how it ended, the best so far, the spend, and how often the model's
 * provider failed its calls (failed attempts, and how many were retried), when it did.
 */
export function progressLine(
  ctx: Pick<RunContext, 'archive' | 'config'>,
  id: number,
  spentUsd: number,
): string {
  const variant = ctx.archive.getVariant(id);
  const score = variant?.step === 'done' ? variant.selectionScore : null;
  const best = bestVariant(ctx.archive);
  const { faults, retries } = ctx.archive.llmFaults(id);
  return (
    `generation ${id}/${ctx.config.generations}: ${variant?.status ?? 'unknown'}` +
    (score === null ? '' : ` score ${score.toFixed(3)}`) +
    ` | best: variant ${best?.id ?? '-'} (${best?.score.toFixed(3) ?? '-'}${best?.confirmed ? ' confirmed' : ''})` +
    noiseNote(ctx.archive, best) +
    ` | spent $${spentUsd.toFixed(4)}` +
    (faults === 0 ? '' : ` | ${count(faults, 'model fault')}, ${count(retries, 'retry', 'retries')}`)
  );
}

/**
 * The progress line's note of the noise floor (`--noise-floor`), when the run measured one, and whether the
 * best's gain over variant 0 lies within it.
 */
function noiseNote(archive: Archive, best: { id: number; score: number } | null): string {
  const floor = archive.getNoiseFloor();
  if (floor === null) return '';
  const initial = archive.getVariant(0)?.selectionScore ?? null;
  return ` | noise ±${floor.spread.toFixed(3)}${noiseMark(floor.spread, initial, best)}`;
}

/** `, best within it` when the best (a child) gains less than the spread over variant 0, `, best beyond it` else. */
export function noiseMark(
  spread: number,
  initial: number | null,
  best: { id: number; score: number } | null,
): string {
  if (best === null || best.id === 0 || initial === null) return '';
  return best.score - initial < spread ? ', best within it' : ', best beyond it';
}

const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export function summarize(
  ctx: Pick<RunContext, 'archive' | 'config' | 'runId' | 'runDir'>,
  simulated: boolean,
  stopped: string | null,
): RunSummary {
  const accepted = ctx.archive.listAcceptance();
  const variants = ctx.archive.listVariants().map((v) => ({
    id: v.id,
    parent: v.parentId,
    commit: v.commitSha,
    status: v.status,
    validParent: v.validParent,
    score: v.step === 'done' ? v.selectionScore : null,
    scores: scoresBySplit(ctx.archive.listEvaluations(v.id)),
    failureReason: v.failureReason,
    acceptance: acceptanceView(accepted.get(v.id)),
  }));
  const totals = ctx.archive.llmTotals();
  return {
    runId: ctx.runId,
    runDir: ctx.runDir,
    model:
      ctx.config.metaModel === ctx.config.taskModel
        ? ctx.config.metaModel
        : `meta=${ctx.config.metaModel} task=${ctx.config.taskModel}`,
    simulated,
    generations: variants.length - 1,
    variants,
    best: bestVariant(ctx.archive),
    noiseFloor: noiseFloorOf(ctx.archive),
    costUsd: totals.costUsd,
    llmCalls: totals.calls,
    stopped,
  };
}

/**
 * The stop reason, and the final line, of a run the budget ended: what was spent, what calls in flight held
 * when the budget refused a call (nothing: it refuses only once every call in flight has settled), and what
 * the refused call needed.
 */
export function budgetMessage(spentUsd: number, budgetUsd: number | null, stop: BudgetStop | null): string {
  const usd = (n: number): string => `$${n.toFixed(4)}`;
  const held = stop === null || stop.heldUsd <= 1e-9 ? 'nothing' : usd(stop.heldUsd);
  return (
    `budget reached: ${usd(spentUsd)} of ${usd(budgetUsd ?? 0)} spent, ${held} held by calls in flight` +
    (stop === null ? '' : `, and the next call's input alone costs about ${usd(stop.nextUsd)}`)
  );
}

/** Says how many calls of a replayed run found no recorded response (they failed). */
export function reportReplayMisses(
  misses: number,
  replay: string | null,
  progress: (line: string) => void,
): void {
  if (misses === 0) return;
  progress(
    `replay: ${misses} call(s) had no recorded response in ${replay}; they failed, so this run ` +
      'differs from the recorded one.',
  );
}

function noiseFloorOf(archive: Archive): RunSummary['noiseFloor'] {
  const floor = archive.getNoiseFloor();
  return floor === null ? null : { spread: spreadOf(floor.scores), scores: floor.scores };
}
